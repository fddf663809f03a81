# SPDX-License-Identifier: GPL-2.0
"""Screen images: read QEMU screendumps and guest framebuffer dumps, compare
them, and check for libdrm modetest's SMPTE test pattern.

Every function here uses one representation, an Image: (width, height,
pixels), where pixels is one bytes object of width * height * 3 bytes, the
rows top to bottom, each pixel R, G, B. Two images are equal when their
tuples are.

    python3 -m pvmaplib.screen smpte [--exact] [--size WxH] FILE
    python3 -m pvmaplib.screen compare A B

read the files (PNG or PPM, told apart by their first bytes), print a
verdict, and exit 0 when the image passes, 1 when it does not (2: the
files could not be read, or bad usage).
"""

import collections
import struct
import sys
import zlib

Image = collections.namedtuple("Image", "width height pixels")

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# PNG colour type: bytes per pixel (8-bit samples only)
PNG_COLOUR_TYPES = {2: 3, 6: 4}


def _read_bytes(path_or_bytes):
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        return bytes(path_or_bytes)
    with open(path_or_bytes, "rb") as f:
        return f.read()


def _png_chunks(data):
    """Yield (type, body) for each chunk of a PNG file, checking its CRC."""
    if not data.startswith(PNG_SIGNATURE):
        raise ValueError("not a PNG file (bad signature)")
    pos = len(PNG_SIGNATURE)
    while pos < len(data):
        if pos + 12 > len(data):
            raise ValueError(f"PNG truncated in a chunk header at byte {pos}")
        length, kind = struct.unpack_from(">I4s", data, pos)
        end = pos + 8 + length
        if end + 4 > len(data):
            raise ValueError(f"PNG chunk {kind!r} at byte {pos} runs past the end of the file")
        body = data[pos + 8:end]
        (crc,) = struct.unpack_from(">I", data, end)
        if zlib.crc32(kind + body) != crc:
            raise ValueError(f"PNG chunk {kind!r} at byte {pos} has a bad CRC")
        yield kind, body
        pos = end + 4


def _unfilter(raw, height, row_bytes, bpp):
    """Undo the per-row PNG filters of decompressed image data."""
    out = bytearray(height * row_bytes)
    prior = bytearray(row_bytes)
    pos = 0
    for y in range(height):
        ftype = raw[pos]
        row = bytearray(raw[pos + 1:pos + 1 + row_bytes])
        pos += 1 + row_bytes
        if ftype == 0:          # None
            pass
        elif ftype == 1:        # Sub
            for i in range(bpp, row_bytes):
                row[i] = (row[i] + row[i - bpp]) & 0xff
        elif ftype == 2:        # Up
            row = bytearray(map(lambda r, b: (r + b) & 0xff, row, prior))
        elif ftype == 3:        # Average
            for i in range(bpp):
                row[i] = (row[i] + (prior[i] >> 1)) & 0xff
            for i in range(bpp, row_bytes):
                row[i] = (row[i] + ((row[i - bpp] + prior[i]) >> 1)) & 0xff
        elif ftype == 4:        # Paeth
            for i in range(bpp):
                row[i] = (row[i] + prior[i]) & 0xff      # a = c = 0: predictor is b
            for i in range(bpp, row_bytes):
                a = row[i - bpp]
                b = prior[i]
                c = prior[i - bpp]
                pa = abs(b - c)
                pb = abs(a - c)
                pc = abs(a + b - c - c)
                if pa <= pb and pa <= pc:
                    pred = a
                elif pb <= pc:
                    pred = b
                else:
                    pred = c
                row[i] = (row[i] + pred) & 0xff
        else:
            raise ValueError(f"PNG row {y} has unknown filter type {ftype}")
        out[y * row_bytes:(y + 1) * row_bytes] = row
        prior = row
    return out


def read_png(path_or_bytes):
    """Decode a PNG (8-bit RGB or RGBA, not interlaced) into an Image.

    Alpha, if any, is dropped. Anything else raises ValueError.
    """
    data = _read_bytes(path_or_bytes)
    header = None
    idat = []
    idat_ended = False
    seen_iend = False
    for kind, body in _png_chunks(data):
        if seen_iend:
            raise ValueError(f"PNG chunk {kind!r} after IEND")
        if header is None and kind != b"IHDR":
            raise ValueError(f"PNG starts with chunk {kind!r}, not IHDR")
        if kind == b"IDAT":
            if idat_ended:
                raise ValueError("PNG IDAT chunks are not consecutive")
            idat.append(body)
            continue
        idat_ended = bool(idat)
        if kind == b"IHDR":
            if header is not None:
                raise ValueError("PNG has two IHDR chunks")
            if len(body) != 13:
                raise ValueError(f"PNG IHDR is {len(body)} bytes, not 13")
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IEND":
            seen_iend = True
        elif kind != b"PLTE" and not kind[0:1].islower():
            # PLTE is only a suggested palette for colour types 2 and 6
            raise ValueError(f"PNG has unsupported critical chunk {kind!r}")
    if header is None:
        raise ValueError("PNG has no chunks")
    if not seen_iend:
        raise ValueError("PNG truncated: no IEND chunk")
    width, height, depth, colour, compression, filtering, interlace = header
    if width == 0 or height == 0:
        raise ValueError(f"PNG has an empty size {width}x{height}")
    if depth != 8 or colour not in PNG_COLOUR_TYPES:
        raise ValueError(f"unsupported PNG: bit depth {depth}, colour type {colour} "
                         f"(only 8-bit RGB, type 2, and RGBA, type 6)")
    if compression != 0 or filtering != 0:
        raise ValueError(f"unsupported PNG compression {compression} / filter method {filtering}")
    if interlace != 0:
        raise ValueError("unsupported PNG: interlaced (Adam7)")
    if not idat:
        raise ValueError("PNG has no IDAT chunk")
    bpp = PNG_COLOUR_TYPES[colour]
    row_bytes = width * bpp
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(b"".join(idat))
    except zlib.error as e:
        raise ValueError(f"PNG image data does not inflate: {e}") from None
    if not inflater.eof:
        raise ValueError("PNG image data is truncated (zlib stream not finished)")
    if len(raw) != height * (1 + row_bytes):
        raise ValueError(f"PNG image data is {len(raw)} bytes, not {height * (1 + row_bytes)} "
                         f"for {width}x{height}")
    pixels = _unfilter(raw, height, row_bytes, bpp)
    if bpp == 4:
        rgb = bytearray(width * height * 3)
        for c in range(3):
            rgb[c::3] = pixels[c::4]
        pixels = rgb
    return Image(width, height, bytes(pixels))


def read_ppm(path_or_bytes):
    """Decode a binary PPM (P6, maxval 255), QEMU's default screendump format."""
    data = _read_bytes(path_or_bytes)
    fields = []
    pos = 0
    while len(fields) < 4:
        while pos < len(data) and (data[pos:pos + 1].isspace() or data[pos:pos + 1] == b"#"):
            if data[pos:pos + 1] == b"#":
                nl = data.find(b"\n", pos)
                pos = len(data) if nl < 0 else nl
            pos += 1
        start = pos
        while pos < len(data) and not data[pos:pos + 1].isspace() and data[pos:pos + 1] != b"#":
            pos += 1
        if start == pos:
            raise ValueError("PPM header truncated")
        fields.append(data[start:pos])
    if fields[0] != b"P6":
        raise ValueError(f"not a binary PPM (magic {fields[0][:8]!r}, want b'P6')")
    try:
        width, height, maxval = (int(f) for f in fields[1:])
    except ValueError:
        raise ValueError(f"PPM header has a non-number: {b' '.join(fields[1:])!r}") from None
    if maxval != 255:
        raise ValueError(f"unsupported PPM maxval {maxval} (only 255)")
    if width <= 0 or height <= 0:
        raise ValueError(f"PPM has an empty size {width}x{height}")
    if not data[pos:pos + 1].isspace():
        raise ValueError("PPM header does not end in whitespace")
    pos += 1
    size = width * height * 3
    if len(data) - pos < size:
        raise ValueError(f"PPM pixel data is {len(data) - pos} bytes, not {size} "
                         f"for {width}x{height}")
    return Image(width, height, bytes(data[pos:pos + size]))


def read_xwd(path_or_bytes):
    """Decode an X Window Dump (xwd(1), file version 7) of a TrueColor
    window at 24 or 32 bits per pixel, ZPixmap, into an Image."""
    data = _read_bytes(path_or_bytes)
    if len(data) < 100:
        raise ValueError("XWD header truncated")
    h = struct.unpack(">25I", data[:100])
    (header_size, version, fmt, _depth, width, height, _xoff, byte_order, _unit, _bit_order,
     _pad, bpp, stride, visual, rmask, gmask, bmask, _bits_rgb, _entries, ncolors) = h[:20]
    if version != 7 or fmt != 2:
        raise ValueError(f"not a version 7 ZPixmap XWD (version {version}, format {fmt})")
    if visual not in (4, 5) or bpp not in (24, 32):
        raise ValueError(f"XWD of visual class {visual} at {bpp} bpp: only TrueColor 24/32")
    if width <= 0 or height <= 0 or stride < width * bpp // 8:
        raise ValueError(f"XWD of size {width}x{height}, {stride} bytes a line")
    pos = header_size + 12 * ncolors
    if len(data) - pos < stride * height:
        raise ValueError(f"XWD pixel data is {len(data) - pos} bytes, not {stride * height}")
    step = bpp // 8
    order = "little" if byte_order == 0 else "big"
    shifts = [(m, (m & -m).bit_length() - 1) for m in (rmask, gmask, bmask)]
    out = bytearray(width * height * 3)
    o = 0
    for y in range(height):
        line = data[pos + y * stride:pos + y * stride + width * step]
        for x in range(0, width * step, step):
            v = int.from_bytes(line[x:x + step], order)
            for m, sh in shifts:
                out[o] = (v & m) >> sh
                o += 1
    return Image(width, height, bytes(out))


def xwd_bytes(image, name="pvmap"):
    """@image as an X Window Dump that xwud(1) shows: version 7, ZPixmap,
    TrueColor depth 24 at 32 bits per pixel, least significant byte first."""
    title = name.encode() + b"\0"
    w, h = image.width, image.height
    header = struct.pack(">25I", 100 + len(title), 7, 2, 24, w, h, 0, 0, 32, 0, 32, 32, w * 4,
                         4, 0xff0000, 0xff00, 0xff, 8, 256, 0, w, h, 0, 0, 0)
    px = bytearray(w * h * 4)
    px[0::4] = image.pixels[2::3]
    px[1::4] = image.pixels[1::3]
    px[2::4] = image.pixels[0::3]
    return header + title + bytes(px)


def write_png(image, path):
    """Write @image as an 8-bit RGB PNG (no filtering), for docs/ and logs."""
    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff))
    row = image.width * 3
    raw = b"".join(b"\0" + image.pixels[y * row:(y + 1) * row] for y in range(image.height))
    with open(path, "wb") as f:
        f.write(PNG_SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", image.width, image.height,
                                                            8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def read_image(path_or_bytes):
    """Read a PNG or a PPM, whichever the file is."""
    data = _read_bytes(path_or_bytes)
    if data.startswith(PNG_SIGNATURE):
        return read_png(data)
    if data.startswith(b"P6"):
        return read_ppm(data)
    raise ValueError("neither a PNG nor a binary PPM file")


def xrgb8888_to_rgb(data, width, height, stride):
    """Convert a little-endian XRGB8888 framebuffer (bytes B, G, R, X per
    pixel, stride bytes a line) into an Image."""
    if stride < width * 4:
        raise ValueError(f"stride {stride} is less than width {width} * 4")
    need = stride * (height - 1) + width * 4 if height else 0
    if len(data) < need:
        raise ValueError(f"framebuffer is {len(data)} bytes, {width}x{height} "
                         f"with stride {stride} needs {need}")
    data = memoryview(data)
    rgb = bytearray(width * height * 3)
    for y in range(height):
        line = data[y * stride:y * stride + width * 4]
        out = y * width * 3
        for c in range(3):      # R from byte 2, G from byte 1, B from byte 0
            rgb[out + c:out + width * 3:3] = line[2 - c::4]
    return Image(width, height, bytes(rgb))


def pixel(image, x, y):
    """The (r, g, b) of one pixel."""
    i = (y * image.width + x) * 3
    return tuple(image.pixels[i:i + 3])


def hex_colour(rgb):
    return "#%02x%02x%02x" % tuple(rgb)


def compare(a, b):
    """Return (number of pixels that differ, description of the first or None).

    Images of different sizes differ in every pixel of the larger one.
    """
    if (a.width, a.height) != (b.width, b.height):
        return (max(a.width * a.height, b.width * b.height),
                f"size differs: {a.width}x{a.height} vs {b.width}x{b.height}")
    if a.pixels == b.pixels:
        return 0, None
    row_bytes = a.width * 3
    count = 0
    first = None
    for y in range(a.height):
        ra = a.pixels[y * row_bytes:(y + 1) * row_bytes]
        rb = b.pixels[y * row_bytes:(y + 1) * row_bytes]
        if ra == rb:
            continue
        for x in range(a.width):
            pa = ra[x * 3:x * 3 + 3]
            pb = rb[x * 3:x * 3 + 3]
            if pa != pb:
                count += 1
                if first is None:
                    first = f"pixel ({x},{y}): {hex_colour(pa)} vs {hex_colour(pb)}"
    return count, first


# libdrm tests/util/pattern.c, fill_smpte_rgb32() (the same from libdrm 2.4.107
# through at least 2.4.120): the colours given to MAKE_RGBA, which for XR24
# (8 bits each of R, G, B at bits 16, 8, 0) stores them unchanged.
SMPTE_TOP = [
    ("grey", (192, 192, 192)), ("yellow", (192, 192, 0)), ("cyan", (0, 192, 192)),
    ("green", (0, 192, 0)), ("magenta", (192, 0, 192)), ("red", (192, 0, 0)),
    ("blue", (0, 0, 192)),
]
SMPTE_MIDDLE = [
    ("blue", (0, 0, 192)), ("black", (19, 19, 19)), ("magenta", (192, 0, 192)),
    ("black", (19, 19, 19)), ("cyan", (0, 192, 192)), ("black", (19, 19, 19)),
    ("grey", (192, 192, 192)),
]
SMPTE_BOTTOM = [
    ("in-phase", (0, 33, 76)), ("super white", (255, 255, 255)),
    ("quadrature", (50, 0, 106)), ("black", (19, 19, 19)), ("3.5%", (9, 9, 9)),
    ("7.5%", (19, 19, 19)), ("11.5%", (29, 29, 29)), ("black", (19, 19, 19)),
]


def smpte_sections(width, height):
    """The pattern's three bands as (name, first row, end row, colours, column
    to colour index), each computed as fill_smpte_rgb32() does."""
    if width < 7:
        raise ValueError(f"width {width} is under 7: fill_smpte_rgb32 divides by width / 7")
    w57 = width * 5 // 7
    w67 = width * 6 // 7
    w7 = width // 7
    top = [x * 7 // width for x in range(width)]
    bottom = [x * 4 // w57 if x < w57 else
              (x - w57) * 3 // w7 + 4 if x < w67 else 7 for x in range(width)]
    return [
        ("top", 0, height * 6 // 9, SMPTE_TOP, top),
        ("middle", height * 6 // 9, height * 7 // 9, SMPTE_MIDDLE, top),
        ("bottom", height * 7 // 9, height, SMPTE_BOTTOM, bottom),
    ]


def smpte_image(width, height):
    """The Image modetest draws with the SMPTE pattern in an XR24 buffer."""
    rows = []
    for _, y0, y1, colours, index in smpte_sections(width, height):
        row = b"".join(bytes(colours[i][1]) for i in index)
        rows.append(row * (y1 - y0))
    return Image(width, height, b"".join(rows))


def _bars(index):
    """Runs of equal colour index: (first column, end column, index)."""
    runs = []
    for x, i in enumerate(index):
        if runs and runs[-1][2] == i:
            runs[-1][1] = x + 1
        else:
            runs.append([x, x + 1, i])
    return runs


def _sample_points(x0, x1, y0, y1):
    """The centre and four points inset a quarter of the way from each corner."""
    mx = (x1 - x0) // 4
    my = (y1 - y0) // 4
    xs = (x0 + mx, x1 - 1 - mx)
    ys = (y0 + my, y1 - 1 - my)
    return [((x0 + x1) // 2, (y0 + y1) // 2)] + [(x, y) for y in ys for x in xs]


def smpte_check(image, size=None, exact=False):
    """Check an Image for modetest's SMPTE pattern as drawn for XR24.

    Samples five points well inside every bar (tolerance 0) and reports one
    failure per wrong bar. size=(w, h) also requires that size; exact=True
    also requires every pixel to match. Returns failure strings: [] is a pass.
    """
    failures = []
    if size is not None and tuple(size) != (image.width, image.height):
        failures.append(f"size {image.width}x{image.height}, want {size[0]}x{size[1]}")
    if len(image.pixels) != image.width * image.height * 3:
        return failures + [f"{len(image.pixels)} bytes of pixels, not "
                           f"{image.width * image.height * 3} for {image.width}x{image.height}"]
    try:
        sections = smpte_sections(image.width, image.height)
    except ValueError as e:
        return failures + [str(e)]
    for section, y0, y1, colours, index in sections:
        if y0 == y1:
            continue
        for bar, (x0, x1, i) in enumerate(_bars(index), 1):
            name, want = colours[i]
            for x, y in _sample_points(x0, x1, y0, y1):
                got = pixel(image, x, y)
                if got != want:
                    failures.append(f"{section} bar {bar} ({name}) at ({x},{y}): "
                                    f"got {hex_colour(got)}, want {hex_colour(want)}")
                    break
    if exact:
        n, first = compare(image, smpte_image(image.width, image.height))
        if n:
            failures.append(f"{n} pixels differ from the pattern; first {first} (got vs want)")
    return failures


def _parse_size(text):
    w, _, h = text.partition("x")
    return int(w), int(h)


def main(argv):
    usage = ("usage: python3 -m pvmaplib.screen smpte [--exact] [--size WxH] FILE\n"
             "       python3 -m pvmaplib.screen compare A B")
    args = list(argv)
    try:
        if args[:1] == ["smpte"]:
            args.pop(0)
            exact = "--exact" in args
            args = [a for a in args if a != "--exact"]
            size = None
            if "--size" in args:
                i = args.index("--size")
                size = _parse_size(args[i + 1])
                del args[i:i + 2]
            if len(args) != 1:
                raise IndexError
            image = read_image(args[0])
            failures = smpte_check(image, size=size, exact=exact)
            for f in failures:
                print(f"FAIL {f}")
            print(f"{args[0]}: {image.width}x{image.height}, "
                  f"{'not ' if failures else ''}the SMPTE pattern")
            return 1 if failures else 0
        if args[:1] == ["compare"] and len(args) == 3:
            n, first = compare(read_image(args[1]), read_image(args[2]))
            if n:
                print(f"{args[1]} and {args[2]} differ in {n} pixels; first {first}")
                return 1
            print(f"{args[1]} and {args[2]} are identical")
            return 0
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except IndexError:
        pass
    print(usage, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
