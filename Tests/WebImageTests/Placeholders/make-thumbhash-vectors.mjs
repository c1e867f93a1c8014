// Writes ThumbHashReferenceVectors.swift: what the reference ThumbHash implementation
// (Evan Wallace's js/thumbhash.js, github.com/evanw/thumbhash) answers for fixed inputs.
//
//   node make-thumbhash-vectors.mjs [path/to/thumbhash.js]
//
// Without an argument the reference is read from the mirror of the evanw/thumbhash repository
// (THUMBHASH_REPO, default /work/.mirror/evanw+thumbhash/repo) at HEAD. The synthetic images
// are integer formulas written twice, here and in ThumbHashVectorPixels (Swift); the test card
// pixels are Fixtures/thumbhash-testcard-100x100.rgba (Fixtures/README.md says how it is made);
// the flower's are Fixtures/thumbhash-flower.jpg (the reference's examples/flower.jpg, 75×100)
// decoded by the libvips command line (`vips`), the library WebImage decodes with.

import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const repo = process.env.THUMBHASH_REPO ?? '/work/.mirror/evanw+thumbhash/repo'
let referencePath = process.argv[2]
let source
if (referencePath) {
  source = `${referencePath} (given on the command line)`
} else {
  const commit = execFileSync('git', ['-C', repo, 'rev-parse', 'HEAD']).toString().trim()
  const text = execFileSync('git', ['-C', repo, 'show', `${commit}:js/thumbhash.js`])
  referencePath = join(mkdtempSync(join(tmpdir(), 'thumbhash-')), 'thumbhash.mjs')
  writeFileSync(referencePath, text)
  source = `evanw/thumbhash js/thumbhash.js at commit ${commit}`
}
const ThumbHash = await import(pathToFileURL(referencePath).href)

// The synthetic images: name, size and an integer formula for the RGBA of pixel (x, y).
const synthetic = [
  ['gradient', 64, 48, (x, y, w, h) => [Math.floor(x * 255 / (w - 1)), Math.floor(y * 255 / (h - 1)), (x + y) * 7 % 256, 255]],
  ['alphaRamp', 40, 40, (x, y, w) => [200, y * 6 % 256, 60, Math.floor(x * 255 / (w - 1))]],
  ['landscapeStripes', 100, 30, (x, y) => [x * 13 % 256, y * 40 % 256, ((x >> 3) + (y >> 3)) % 2 ? 230 : 20, 255]],
  ['portrait', 20, 90, (x, y, w, h) => [Math.floor(y * 255 / (h - 1)), 255 - Math.floor(y * 255 / (h - 1)), x * 12, 255]],
  ['solid', 16, 16, () => [12, 120, 200, 255]],
  ['disc', 90, 50, (x, y) => {
    const dx = x - 45, dy = y - 25
    return [(x * 3) % 256, 180, (y * 5) % 256, dx * dx + dy * dy < 400 ? 255 : 0]
  }],
  ['transparent', 8, 8, () => [255, 0, 0, 0]],
  ['onePixel', 1, 1, () => [40, 80, 160, 255]],
  ['square100', 100, 100, (x, y) => [(x * y) % 256, (x + 2 * y) % 256, (3 * x + y) % 256, 255]],
]

function pixels(w, h, formula) {
  const rgba = new Uint8Array(w * h * 4)
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      rgba.set(formula(x, y, w, h), (x + y * w) * 4)
  return rgba
}

// The number of bytes a hash with this header has (the encoder writes exactly that many).
function hashLength(bytes) {
  const hasAlpha = (bytes[2] & 0x80) !== 0
  const isLandscape = (bytes[4] & 0x80) !== 0
  const stored = bytes[3] & 7
  const lx = Math.max(3, isLandscape ? (hasAlpha ? 5 : 7) : stored)
  const ly = Math.max(3, isLandscape ? stored : (hasAlpha ? 5 : 7))
  let count = 0
  for (let cy = 0; cy < ly; cy++)
    for (let cx = cy ? 0 : 1; cx * ly < lx * (ly - cy); cx++) count++
  count += 5 + 5 + (hasAlpha ? 14 : 0)
  return (hasAlpha ? 6 : 5) + Math.ceil(count / 2)
}

// Hashes for decoding only: pseudo-random bytes (a fixed LCG) under every header shape, so
// every nibble value and the clamping of out-of-range colours are exercised.
function decodeOnlyHashes() {
  let seed = 12345
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) >> 16 & 255
  const hashes = []
  for (const [hasAlpha, isLandscape, stored] of [[0, 0, 7], [0, 1, 4], [1, 0, 2], [1, 1, 5], [0, 0, 1], [1, 1, 1]]) {
    const head = [next(), next(), next(), next(), next()]
    head[2] = (head[2] & 0x7f) | (hasAlpha << 7)
    head[3] = (head[3] & ~7) | stored
    head[4] = (head[4] & 0x7f) | (isLandscape << 7)
    const bytes = head.slice()
    while (bytes.length < hashLength(head)) bytes.push(next())
    hashes.push(bytes)
  }
  return hashes
}

const hex = bytes => Array.from(bytes, b => b.toString(16).padStart(2, '0')).join('')
const num = value => Number.isInteger(value) ? `${value}.0` : `${value}`

function decodedFields(hash) {
  const decoded = ThumbHash.thumbHashToRGBA(hash)
  const average = ThumbHash.thumbHashToAverageRGBA(hash)
  return [
    `decodedWidth: ${decoded.w}, decodedHeight: ${decoded.h},`,
    `decodedRGBA: "${Buffer.from(decoded.rgba).toString('base64')}",`,
    `average: [${[average.r, average.g, average.b, average.a].map(num).join(', ')}],`,
    `aspectRatio: ${num(ThumbHash.thumbHashToApproximateAspectRatio(hash))}`,
  ]
}

const encoded = synthetic.map(([name, w, h, formula]) => {
  const hash = ThumbHash.rgbaToThumbHash(w, h, pixels(w, h, formula))
  return [`name: "${name}", width: ${w}, height: ${h},`, `hash: "${hex(hash)}", base64: "${Buffer.from(hash).toString('base64')}",`, ...decodedFields(hash)]
})
const testCard = readFileSync(join(here, '..', 'Fixtures', 'thumbhash-testcard-100x100.rgba'))
const testCardHash = ThumbHash.rgbaToThumbHash(100, 100, testCard)
encoded.push([`name: "testCard", width: 100, height: 100,`, `hash: "${hex(testCardHash)}", base64: "${Buffer.from(testCardHash).toString('base64')}",`, ...decodedFields(testCardHash)])

// The flower photo as libvips decodes it, with an opaque alpha band added.
const work = mkdtempSync(join(tmpdir(), 'thumbhash-flower-'))
execFileSync('vips', ['bandjoin_const', join(here, '..', 'Fixtures', 'thumbhash-flower.jpg'), join(work, 'flower.v'), '255'])
execFileSync('vips', ['rawsave', join(work, 'flower.v'), join(work, 'flower.rgba')])
const flowerHash = ThumbHash.rgbaToThumbHash(75, 100, readFileSync(join(work, 'flower.rgba')))
encoded.push([`name: "flower", width: 75, height: 100,`, `hash: "${hex(flowerHash)}", base64: "${Buffer.from(flowerHash).toString('base64')}",`, ...decodedFields(flowerHash)])

const decodeOnly = decodeOnlyHashes().map(hash => [`hash: "${hex(hash)}",`, ...decodedFields(Uint8Array.from(hash))])

// FNV-1a (64 bits) over the IEEE 754 bits (little-endian) of Math.cos at every argument
// the reference computes for images up to 100 pixels a side: for each w = 1…100, c = 0…7,
// x = 0…w−1, the encoder's π/w·c·(x + 0.5), then the decoder's π/w·(x + 0.5)·c.
function cosineDigest() {
  const view = new DataView(new ArrayBuffer(8))
  let digest = 0xcbf29ce484222325n
  const mix = value => {
    view.setFloat64(0, value, true)
    for (let i = 0; i < 8; i++) digest = ((digest ^ BigInt(view.getUint8(i))) * 0x100000001b3n) & 0xffffffffffffffffn
  }
  for (let w = 1; w <= 100; w++)
    for (let c = 0; c < 8; c++)
      for (let x = 0; x < w; x++) {
        mix(Math.cos(Math.PI / w * c * (x + 0.5)))
        mix(Math.cos(Math.PI / w * (x + 0.5) * c))
      }
  return '0x' + digest.toString(16).padStart(16, '0')
}

const entries = (type, list) => list.map(lines => `        ${type}(\n            ${lines.join('\n            ')}\n        ),`).join('\n')
const swift = `// Generated by make-thumbhash-vectors.mjs from ${source}
// (node ${process.version}); run the script again to remake it, never edit it by hand.

/// What the reference ThumbHash implementation answers for fixed inputs.
enum ThumbHashReferenceVectors {
    /// The hash of an image (a synthetic formula in \`ThumbHashVectorPixels\`, the test card
    /// fixture, or the flower photo as libvips decodes it), and what decoding that hash gives.
    struct Encoded {
        let name: String
        let width: Int
        let height: Int
        let hash: String
        let base64: String
        let decodedWidth: Int
        let decodedHeight: Int
        let decodedRGBA: String
        let average: [Double]
        let aspectRatio: Double
    }

    /// A hash made up of pseudo-random bytes under a valid header, and what decoding it gives.
    struct Decoded {
        let hash: String
        let decodedWidth: Int
        let decodedHeight: Int
        let decodedRGBA: String
        let average: [Double]
        let aspectRatio: Double
    }

    static let encoded: [Encoded] = [
${entries('Encoded', encoded)}
    ]

    static let decoded: [Decoded] = [
${entries('Decoded', decodeOnly)}
    ]

    /// FNV-1a (64 bits) of the little-endian bits of \`Math.cos\` at, for each w = 1…100,
    /// c = 0…7, x = 0…w−1 in that nesting, the encoder's argument π/w·c·(x + 0.5) and then
    /// the decoder's π/w·(x + 0.5)·c.
    static let cosineDigest: UInt64 = ${cosineDigest()}
}
`
writeFileSync(join(here, 'ThumbHashReferenceVectors.swift'), swift)
console.log(`wrote ${encoded.length} encoded and ${decodeOnly.length} decode-only vectors from ${source}`)
