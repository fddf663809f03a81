#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of pvmaplib.screen (the screendump reader and the SMPTE check that
judge pvmap_drm's screen), printed as KTAP: each feeds it what a broken screen
or a hostile file would hold and asserts it notices.
"""

import os
import random
import struct
import sys
import tempfile
import unittest
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "host"))
from pvmaplib import ktap, screen  # noqa: E402


def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def png_filter_row(ftype, row, prior, bpp):
    """Filter one row as a PNG encoder does (the inverse of what read_png undoes)."""
    out = bytearray([ftype])
    for i, v in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prior[i]
        c = prior[i - bpp] if i >= bpp else 0
        pred = (0, a, b, (a + b) // 2, paeth(a, b, c))[ftype]
        out.append((v - pred) & 0xff)
    return out


def encode_png(width, height, pixels, colour=2, filters=(0, 1, 2, 3, 4), idat_size=None,
               depth=8, interlace=0):
    """A PNG of these pixels; row y uses filter filters[y % len(filters)]."""
    bpp = 4 if colour == 6 else 3
    row_bytes = width * bpp
    prior = bytes(row_bytes)
    raw = bytearray()
    for y in range(height):
        row = pixels[y * row_bytes:(y + 1) * row_bytes]
        raw += png_filter_row(filters[y % len(filters)], row, prior, bpp)
        prior = row
    data = zlib.compress(bytes(raw))
    idat_size = idat_size or len(data)
    idats = b"".join(png_chunk(b"IDAT", data[i:i + idat_size])
                     for i in range(0, len(data), idat_size))
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace)
    return (screen.PNG_SIGNATURE + png_chunk(b"IHDR", ihdr) + png_chunk(b"tEXt", b"k\0v") +
            idats + png_chunk(b"IEND", b""))


def noise(n, seed=1):
    """n bytes that exercise the filters: random values, wrap-arounds and, from
    an arithmetic progression, ties between Paeth's predictors."""
    rng = random.Random(seed)
    return bytes(rng.choice((rng.randrange(256), 0, 10, 20, 30, 255)) for _ in range(n))


class ScreenPNG(unittest.TestCase):
    """read_png, read_ppm and xrgb8888_to_rgb decode to the same Image."""

    def test_every_filter_type(self):
        w, h = 17, 25
        pixels = noise(w * h * 3)
        for filters in ((0,), (1,), (2,), (3,), (4,), (4, 3, 2, 1, 0), (0, 1, 2, 3, 4)):
            img = screen.read_png(encode_png(w, h, pixels, filters=filters))
            self.assertEqual(img, (w, h, pixels), f"filters {filters}")

    def test_rgba_drops_alpha(self):
        w, h = 9, 6
        rgba = noise(w * h * 4, seed=2)
        rgb = bytes(b for i, b in enumerate(rgba) if i % 4 != 3)
        self.assertEqual(screen.read_png(encode_png(w, h, rgba, colour=6)), (w, h, rgb))

    def test_split_idat_and_file_path(self):
        w, h = 31, 7
        pixels = noise(w * h * 3, seed=3)
        with tempfile.NamedTemporaryFile(suffix=".png") as f:
            f.write(encode_png(w, h, pixels, idat_size=10))
            f.flush()
            self.assertEqual(screen.read_png(f.name), (w, h, pixels))
            self.assertEqual(screen.read_image(f.name), (w, h, pixels))

    def test_rejects_bad_files(self):
        good = encode_png(4, 4, noise(48))
        corrupt = bytearray(good)
        corrupt[good.index(b"IDAT") + 6] ^= 1
        bad = {
            "bad CRC": bytes(corrupt),
            "signature": b"GIF89a" + good[6:],
            "no IEND": good[:-12],
            "interlaced": encode_png(4, 4, noise(48), interlace=1),
            "bit depth 16": encode_png(4, 4, noise(48), depth=16),
            "colour type 3": encode_png(4, 4, noise(48), colour=3),
            "filter type 5": screen.PNG_SIGNATURE +
            png_chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) +
            png_chunk(b"IDAT", zlib.compress(b"\x05abc")) + png_chunk(b"IEND", b""),
        }
        for what, data in bad.items():
            with self.assertRaises(ValueError, msg=what):
                screen.read_png(data)

    def test_ppm(self):
        w, h = 5, 3
        pixels = noise(w * h * 3, seed=4)
        data = b"P6\n# QEMU\n%d %d\n255\n" % (w, h) + pixels
        self.assertEqual(screen.read_ppm(data), (w, h, pixels))
        self.assertEqual(screen.read_image(data), screen.read_png(encode_png(w, h, pixels)))
        with self.assertRaises(ValueError):
            screen.read_ppm(data[:-1])
        with self.assertRaises(ValueError):
            screen.read_ppm(b"P3\n1 1\n255\n0 0 0\n")

    def test_xrgb8888_round_trip_and_one_pixel_off(self):
        w, h, stride = 6, 4, 32
        pixels = noise(w * h * 3, seed=5)
        fb = bytearray(stride * h)
        for y in range(h):
            for x in range(w):
                r, g, b = pixels[(y * w + x) * 3:(y * w + x) * 3 + 3]
                fb[y * stride + x * 4:y * stride + x * 4 + 4] = bytes((b, g, r, 0xaa))
        dumped = screen.xrgb8888_to_rgb(bytes(fb), w, h, stride)
        shot = screen.read_png(encode_png(w, h, pixels))
        self.assertEqual(screen.compare(dumped, shot), (0, None))
        fb[2 * stride + 3 * 4 + 1] ^= 0x40         # green of pixel (3,2)
        n, first = screen.compare(screen.xrgb8888_to_rgb(bytes(fb), w, h, stride), shot)
        self.assertEqual(n, 1)
        self.assertIn("(3,2)", first)
        n, first = screen.compare(shot, screen.Image(w, h - 1, shot.pixels[:w * (h - 1) * 3]))
        self.assertEqual(n, w * h)
        self.assertIn("size", first)
        with self.assertRaises(ValueError):
            screen.xrgb8888_to_rgb(bytes(fb), w, h, w * 4 - 1)


def smpte_reference(width, height):
    """fill_smpte_rgb32() (libdrm tests/util/pattern.c) redone pixel by pixel, as RGB."""
    top = [(192, 192, 192), (192, 192, 0), (0, 192, 192), (0, 192, 0), (192, 0, 192),
           (192, 0, 0), (0, 0, 192)]
    middle = [(0, 0, 192), (19, 19, 19), (192, 0, 192), (19, 19, 19), (0, 192, 192),
              (19, 19, 19), (192, 192, 192)]
    bottom = [(0, 33, 76), (255, 255, 255), (50, 0, 106), (19, 19, 19), (9, 9, 9),
              (19, 19, 19), (29, 29, 29), (19, 19, 19)]
    out = bytearray()
    for y in range(height):
        for x in range(width):
            if y < height * 6 // 9:
                c = top[x * 7 // width]
            elif y < height * 7 // 9:
                c = middle[x * 7 // width]
            elif x < width * 5 // 7:
                c = bottom[x * 4 // (width * 5 // 7)]
            elif x < width * 6 // 7:
                c = bottom[(x - width * 5 // 7) * 3 // (width // 7) + 4]
            else:
                c = bottom[7]
            out += bytes(c)
    return screen.Image(width, height, bytes(out))


class ScreenXWD(unittest.TestCase):
    """The X Window Dumps make vm-check compares with screendumps (xwd -root,
    and the image xwud shows), and the PNGs it keeps."""

    def image(self, w=7, h=3):
        rnd = random.Random(7)
        return screen.Image(w, h, bytes(rnd.randrange(256) for _ in range(w * h * 3)))

    def test_round_trip(self):
        im = self.image()
        self.assertEqual(screen.read_xwd(screen.xwd_bytes(im)), im)

    def test_msb_first_and_padded_lines(self):
        # what an X server on a big-endian client's request, or a padded line, looks like
        im = self.image(3, 2)
        hdr = struct.pack(">25I", 104, 7, 2, 24, 3, 2, 0, 1, 32, 1, 32, 32, 16, 4,
                          0xff0000, 0xff00, 0xff, 8, 256, 0, 3, 2, 0, 0, 0) + b"xwd\0"
        rows = b""
        for y in range(2):
            for x in range(3):
                r, g, b = screen.pixel(im, x, y)
                rows += bytes((0, r, g, b))
            rows += b"\xee" * 4
        self.assertEqual(screen.read_xwd(hdr + rows), im)

    def test_one_pixel_off_is_seen(self):
        im = self.image()
        data = bytearray(screen.xwd_bytes(im))
        data[-1] ^= 0x01  # the last pixel's padding byte: no difference
        data[-2] ^= 0x01  # its red
        got = screen.read_xwd(bytes(data))
        self.assertEqual(screen.compare(got, im)[0], 1)

    def test_rejects_bad_files(self):
        good = screen.xwd_bytes(self.image())
        for bad in (good[:50], good[:-1],
                    good[:4] + struct.pack(">I", 6) + good[8:],       # version 6
                    good[:44] + struct.pack(">I", 16) + good[48:],    # 16 bpp
                    good[:48] + struct.pack(">I", 4) + good[52:],     # stride < width * 4
                    good[:52] + struct.pack(">I", 3) + good[56:]):    # PseudoColor
            with self.assertRaises(ValueError):
                screen.read_xwd(bad)

    def test_png_written_reads_back(self):
        im = self.image(9, 4)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.png")
            screen.write_png(im, path)
            self.assertEqual(screen.read_png(path), im)


class ScreenSMPTE(unittest.TestCase):
    """smpte_check passes modetest's XR24 SMPTE frame and names a wrong bar."""

    @classmethod
    def setUpClass(cls):
        cls.small = smpte_reference(150, 100)

    def test_module_pattern_matches_reference(self):
        for w, h in ((150, 100), (7, 9), (13, 11), (101, 37)):
            self.assertEqual(screen.smpte_image(w, h), smpte_reference(w, h), f"{w}x{h}")

    def test_reference_passes(self):
        for w, h in ((150, 100), (13, 11), (101, 37)):
            self.assertEqual(screen.smpte_check(smpte_reference(w, h), exact=True), [])

    def test_1024x768_png_passes(self):
        img = screen.smpte_image(1024, 768)
        self.assertEqual(img.pixels[:3], bytes((192, 192, 192)))
        # a PNG of the frame, as QEMU's screendump writes it, decodes and passes
        data = encode_png(1024, 768, img.pixels, filters=(1, 2))
        self.assertEqual(screen.smpte_check(screen.read_png(data), size=(1024, 768)), [])
        self.assertEqual(screen.smpte_check(img, size=(800, 600)), ["size 1024x768, want 800x600"])

    def repaint(self, img, x0, x1, y0, y1, rgb):
        px = bytearray(img.pixels)
        for y in range(y0, y1):
            px[(y * img.width + x0) * 3:(y * img.width + x1) * 3] = bytes(rgb) * (x1 - x0)
        return screen.Image(img.width, img.height, bytes(px))

    def test_wrong_bar_is_named(self):
        # top bar 3 is cyan over x in [43, 64) (x * 7 // 150 == 2), y in [0, 66)
        bad = self.repaint(self.small, 43, 64, 0, 66, (0, 192, 0))
        fails = screen.smpte_check(bad)
        self.assertEqual(len(fails), 1, fails)
        self.assertRegex(fails[0],
                         r"^top bar 3 \(cyan\) at \(\d+,\d+\): got #00c000, want #00c0c0$")
        # super white, bottom bar 2: x * 4 // 107 == 1 over x in [27, 54), y in [77, 100)
        bad = self.repaint(self.small, 27, 54, 77, 100, (254, 255, 255))
        self.assertEqual([f.split(" at ")[0] for f in screen.smpte_check(bad)],
                         ["bottom bar 2 (super white)"])

    def test_edge_pixel_needs_exact(self):
        bad = self.repaint(self.small, 149, 150, 99, 100, (0, 0, 0))
        self.assertEqual(screen.smpte_check(bad), [])
        fails = screen.smpte_check(bad, exact=True)
        self.assertEqual(len(fails), 1)
        self.assertIn("1 pixels differ", fails[0])
        self.assertIn("(149,99)", fails[0])

    def test_black_frame_fails_every_bar(self):
        black = screen.Image(150, 100, bytes(150 * 100 * 3))
        fails = screen.smpte_check(black)
        self.assertEqual(len(fails), 7 + 7 + 8)
        self.assertTrue(fails[0].startswith("top bar 1 (grey) at "), fails[0])
        self.assertTrue(fails[-1].startswith("bottom bar 8 (black) at "), fails[-1])
        self.assertTrue(all("got #000000" in f for f in fails))

    def test_too_narrow(self):
        self.assertEqual(len(screen.smpte_check(screen.Image(6, 9, bytes(6 * 9 * 3)))), 1)

    def test_cli(self):
        with tempfile.TemporaryDirectory() as d:
            good = os.path.join(d, "good.png")
            bad = os.path.join(d, "bad.ppm")
            with open(good, "wb") as f:
                f.write(encode_png(150, 100, self.small.pixels, filters=(0,)))
            with open(bad, "wb") as f:
                f.write(b"P6\n150 100\n255\n" + bytes(150 * 100 * 3))
            out = open(os.devnull, "w")
            saved = sys.stdout
            sys.stdout = out
            try:
                self.assertEqual(screen.main(["smpte", "--exact", good]), 0)
                self.assertEqual(screen.main(["smpte", bad]), 1)
                self.assertEqual(screen.main(["compare", good, good]), 0)
                self.assertEqual(screen.main(["compare", good, bad]), 1)
            finally:
                sys.stdout = saved
                out.close()


if __name__ == "__main__":
    sys.exit(ktap.run_unittests(sys.modules[__name__], "screen"))
