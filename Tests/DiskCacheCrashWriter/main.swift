import WebImage
