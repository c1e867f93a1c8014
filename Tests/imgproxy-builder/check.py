"""URLs from published imgproxy URL builders against `webimage serve`.

Run through check.sh (which installs the builders and builds the binary):
    python check.py <path to the webimage binary>

The origin serves a 200 x 100 positional PNG: a pixel's red channel is its x
(x * 255 / 199), green its y (y * 255 / 99), blue 255. Each check builds a URL with a
builder, fetches it, and compares the status, the output size and which source pixel
some output pixels show.
"""

import http.server
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import zlib

os.environ.pop("IMGPROXY_KEY", None)
os.environ.pop("IMGPROXY_SALT", None)

from imgproxy import ImgProxy as KlenImgProxy  # noqa: E402  (the `imgproxy` package)
from pyimgproxy import ImgProxy  # noqa: E402

WIDTH, HEIGHT = 200, 100
KEY = "736563726574"  # "secret"
SALT = "68656c6c6f"  # "hello"


def positional_png():
    rows = b""
    for y in range(HEIGHT):
        row = bytearray([0])
        for x in range(WIDTH):
            row += bytes([round(x * 255 / (WIDTH - 1)), round(y * 255 / (HEIGHT - 1)), 255])
        rows += bytes(row)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def decode_png(data):
    """Width, height and a pixel reader for an 8-bit, non-interlaced PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, idat, header = 8, b"", None
    while position < len(data):
        (length,) = struct.unpack(">I", data[position:position + 4])
        kind = data[position + 4:position + 8]
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and interlace == 0, f"unsupported PNG: depth {depth}, interlace {interlace}"
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            upper_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                estimate = left + up - upper_left
                pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - upper_left)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else upper_left
                line[i] = (line[i] + predictor) & 0xFF
        rows.append(line)
        previous = line

    def pixel(x, y):
        return list(rows[y][x * channels:(x + 1) * channels])

    return width, height, pixel


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_origin(png):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            if self.path.split("?")[0] != "/geometry.png":
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(png)))
            self.end_headers()
            self.wfile.write(png)

        def log_message(self, *arguments):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def start_proxy(binary, signed, cache):
    port = free_port()
    command = [binary, "serve", "--bind", "127.0.0.1", "--port", str(port), "--no-imgproxy-defaults", "--allow-loopback", "--cache-dir", cache, "--log-level", "error"]
    if signed:
        command += ["--key", KEY, "--salt", SALT]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"webimage serve exited: {process.stderr.read().decode()}")
        try:
            if fetch(f"http://127.0.0.1:{port}/health")[0] == 200:
                return process, f"http://127.0.0.1:{port}"
        except OSError:
            pass
        time.sleep(0.2)
    process.kill()
    raise SystemExit("webimage serve did not answer /health within 60 s")


failures = []
passed = 0


def check(label, url, status=200, size=None, shows=(), blank=()):
    """Fetches url; `shows` lists ((output x, y), (source x, y)) pairs, `blank` output points outside the image."""
    global passed
    got, body = fetch(url)
    problems = []
    if got != status:
        problems.append(f"status {got}, expected {status}: {body[:200]!r}")
    elif status == 200:
        width, height, pixel = decode_png(body)
        if size and (width, height) != size:
            problems.append(f"size {width}x{height}, expected {size[0]}x{size[1]}")
        else:
            for (ox, oy), (sx, sy) in shows:
                found = pixel(ox, oy)
                fx, fy = found[0] * (WIDTH - 1) / 255, found[1] * (HEIGHT - 1) / 255
                if abs(fx - sx) > 3 or abs(fy - sy) > 3:
                    problems.append(f"output ({ox}, {oy}) shows source ({fx:.1f}, {fy:.1f}), expected ({sx}, {sy})")
            for ox, oy in blank:
                found = pixel(ox, oy)
                if not ((len(found) == 4 and found[3] < 128) or found[2] < 128):
                    problems.append(f"output ({ox}, {oy}) is {found}, expected outside the image")
    if problems:
        failures.append(f"{label}: {url}\n    " + "\n    ".join(problems))
    else:
        passed += 1


def builder_checks(proxy_url, source, key, salt, tag):
    """Checks through pyimgproxy and imgproxy with the given key (None: unsigned)."""
    builder = ImgProxy(url=proxy_url, key=key or "", salt=salt or "")
    image = builder.image(source)
    png = image.format("png")
    # Fill 100x26 with a y offset alone: pyimgproxy writes gravity:no::5.
    check(f"{tag} pyimgproxy fill + gravity:no::5", png.resize("fill", 100, 26).gravity("no", None, 5).url,
          size=(100, 26), shows=[((50, 13), (100, 36))])
    check(f"{tag} pyimgproxy width + dpr", png.width(50).dpr(2).url, size=(100, 50), shows=[((50, 25), (100, 50))])
    check(f"{tag} pyimgproxy dpr alone", png.dpr(0.5).url, size=(100, 50), shows=[((10, 10), (20, 20))])
    check(f"{tag} pyimgproxy crop with only a width", png.crop(50).url, size=(50, 100), shows=[((25, 50), (100, 50))])
    # enlarge(True) is written enlarge:True, one of Go's boolean spellings.
    check(f"{tag} pyimgproxy padding + dpr + background", png.padding(10).background(hex_color="ff0000").dpr(2).enlarge(True).url,
          size=(440, 240), shows=[((220, 120), (100, 50))], blank=[(5, 120), (220, 5)])
    check(f"{tag} pyimgproxy extend_aspect_ratio", png.resize("fit", 300, 600).extend_aspect_ratio(True, "no").url,
          size=(200, 400), shows=[((100, 50), (100, 50))], blank=[(100, 200)])
    check(f"{tag} pyimgproxy extend with offsets", png.resize("fit", 300, 300).extend(True, "nowe", 10, 20).url,
          size=(300, 300), shows=[((10, 20), (0, 0))], blank=[(5, 5)])
    check(f"{tag} pyimgproxy zoom", png.zoom(0.5).url, size=(100, 50))
    check(f"{tag} pyimgproxy min-width", png.min_width(300).url, size=(300, 150))
    check(f"{tag} pyimgproxy rotate without auto-rotate", png.rotate(90).auto_rotate(False).url, size=(100, 200),
          shows=[((99, 0), (0, 0))])
    check(f"{tag} pyimgproxy flip (add_option)", png.add_option("flip", None, True).url, size=(200, 100), shows=[((0, 0), (0, 99))])
    check(f"{tag} pyimgproxy focus point", png.resize("fill", 50, 50).gravity("fp", 0.1, 0.5).url, size=(50, 50),
          shows=[((25, 25), (50, 50))])
    # A source with a query: pyimgproxy switches to base64.
    check(f"{tag} pyimgproxy base64 source", builder.image(source + "?v=1").format("png").resize("fit", 100, 100).url, size=(100, 50))

    # The `imgproxy` package: /<advanced>/g:<gravity>/rs:<type>:<w>:<h>:<enlarge>/<base64 source>.<ext>
    def klen(**options):
        return str(KlenImgProxy(source, proxy_host=proxy_url, key=key, salt=salt, extension="png", **options))

    check(f"{tag} imgproxy fill north", klen(resizing_type="fill", width=100, height=26, gravity="no"), size=(100, 26),
          shows=[((50, 13), (100, 26))])
    check(f"{tag} imgproxy gravity with a y offset alone", klen(resizing_type="fill", width=100, height=26, gravity="no::5"),
          size=(100, 26), shows=[((50, 13), (100, 36))])
    check(f"{tag} imgproxy dpr (advanced)", klen(resizing_type="fit", width=50, advanced=["dpr:2"]), size=(100, 50))
    check(f"{tag} imgproxy auto, enlarge", klen(width=400, height=300, enlarge=True), size=(400, 300))
    return builder, png


def main():
    binary = sys.argv[1]
    origin = start_origin(positional_png())
    source = f"http://127.0.0.1:{origin.server_port}/geometry.png"
    processes = []
    with tempfile.TemporaryDirectory() as cache:
        try:
            signed_process, signed_url = start_proxy(binary, True, os.path.join(cache, "signed"))
            processes.append(signed_process)
            unsigned_process, unsigned_url = start_proxy(binary, False, os.path.join(cache, "unsigned"))
            processes.append(unsigned_process)

            builder_checks(unsigned_url, source, None, None, "unsigned")
            _, png = builder_checks(signed_url, source, KEY, SALT, "signed")

            # The signed server refuses unsigned and wrongly signed URLs.
            unsigned_path = ImgProxy(url=signed_url, key="", salt="").image(source).format("png").width(50).url
            check("signed server, unsigned URL", unsigned_path, status=403)
            wrong = ImgProxy(url=signed_url, key="00" + KEY, salt=SALT).image(source).format("png").width(50).url
            check("signed server, wrong key", wrong, status=403)
            # Paths mangled on the way (':' escaped in the options, '//' merged in the plain
            # source) still match the signature, as in imgproxy.
            good = png.resize("fit", 100, 100).url
            prefix, _, rest = good.partition("/plain/")
            signature_end = prefix.index("/", len(signed_url) + 1)
            mangled = prefix[:signature_end] + prefix[signature_end:].replace(":", "%3A") + "/plain/" + rest.replace("://", ":/", 1)
            check("signed server, mangled path", mangled, size=(100, 50))
            check("unsigned server, malformed signature (an option first)", f"{unsigned_url}/rs:fit:10:10/plain/{source}", status=403)
        finally:
            for process in processes:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
            origin.shutdown()

    for failure in failures:
        print("FAIL " + failure)
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
