#!/usr/bin/env python3
"""Turns `tmux capture-pane -e -p` output (text with SGR colour codes) into a PNG: one
monospace cell per column, drawn with its foreground, background and bold/dim/italic/
underline/reverse attributes. Usage: ansi2png.py CAPTURE.ansi OUT.png COLS ROWS"""

import re
import sys
import unicodedata

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
CJK_FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
SIZE = 15
BG = (24, 24, 32)
FG = (214, 214, 220)
# The 16 ANSI colours (a calm dark palette).
PALETTE = [
    (40, 42, 54), (224, 108, 117), (152, 195, 121), (229, 192, 123),
    (97, 175, 239), (198, 120, 221), (86, 182, 194), (200, 200, 206),
    (92, 99, 112), (240, 130, 140), (172, 215, 141), (245, 210, 140),
    (130, 195, 255), (218, 145, 240), (110, 205, 215), (255, 255, 255),
]
SGR = re.compile(r"\x1b\[([0-9;:]*)m")
OTHER_ESC = re.compile(r"\x1b(\[[0-9;?]*[A-Za-z]|\][^\x07]*\x07|.)")


def xterm256(n):
    if n < 16:
        return PALETTE[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return (v, v, v)


class Pen:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = None
        self.bg = None
        self.bold = self.dim = self.italic = self.underline = self.reverse = False

    def apply(self, params):
        codes = [int(p) if p.isdigit() else 0 for p in re.split("[;:]", params)] if params else [0]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                self.reset()
            elif c == 1:
                self.bold = True
            elif c == 2:
                self.dim = True
            elif c == 3:
                self.italic = True
            elif c == 4:
                self.underline = True
            elif c == 7:
                self.reverse = True
            elif c == 22:
                self.bold = self.dim = False
            elif c == 23:
                self.italic = False
            elif c == 24:
                self.underline = False
            elif c == 27:
                self.reverse = False
            elif 30 <= c <= 37:
                self.fg = PALETTE[c - 30]
            elif 90 <= c <= 97:
                self.fg = PALETTE[c - 90 + 8]
            elif c == 39:
                self.fg = None
            elif 40 <= c <= 47:
                self.bg = PALETTE[c - 40]
            elif 100 <= c <= 107:
                self.bg = PALETTE[c - 100 + 8]
            elif c == 49:
                self.bg = None
            elif c in (38, 48) and i + 1 < len(codes):
                if codes[i + 1] == 5 and i + 2 < len(codes):
                    col = xterm256(codes[i + 2])
                    i += 2
                elif codes[i + 1] == 2 and i + 4 < len(codes):
                    col = tuple(codes[i + 2:i + 5])
                    i += 4
                else:
                    col = None
                if c == 38:
                    self.fg = col
                else:
                    self.bg = col
                i += 1
            i += 1

    def colours(self):
        fg = self.fg or FG
        bg = self.bg or BG
        if self.reverse:
            fg, bg = bg, fg
        if self.dim:
            fg = tuple((a + b) // 2 for a, b in zip(fg, bg))
        return fg, bg


def width(ch):
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def main():
    src, out, cols, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    fonts = {
        (False, False): ImageFont.truetype(FONT_DIR + "DejaVuSansMono.ttf", SIZE),
        (True, False): ImageFont.truetype(FONT_DIR + "DejaVuSansMono-Bold.ttf", SIZE),
        (False, True): ImageFont.truetype(FONT_DIR + "DejaVuSansMono-Oblique.ttf", SIZE),
        (True, True): ImageFont.truetype(FONT_DIR + "DejaVuSansMono-BoldOblique.ttf", SIZE),
    }
    # DejaVu Sans Mono has no braille (the spinner); DejaVu Sans does.
    fallback = ImageFont.truetype(FONT_DIR + "DejaVuSans.ttf", SIZE)
    # Wide (CJK) characters: DejaVu has none; WenQuanYi Micro Hei if installed
    # (apt install fonts-wqy-microhei), else they show as boxes.
    try:
        wide = ImageFont.truetype(CJK_FONT, SIZE)
    except OSError:
        wide = fonts[(False, False)]
    cw = int(round(fonts[(False, False)].getlength("M")))
    ch = int(SIZE * 1.3)
    pad = 10
    img = Image.new("RGB", (cols * cw + 2 * pad, rows * ch + 2 * pad), BG)
    draw = ImageDraw.Draw(img)
    text = open(src, encoding="utf-8", errors="replace").read()
    pen = Pen()
    for y, line in enumerate(text.split("\n")[:rows]):
        x = 0
        pos = 0
        while pos < len(line):
            m = SGR.match(line, pos)
            if m:
                pen.apply(m.group(1))
                pos = m.end()
                continue
            m = OTHER_ESC.match(line, pos)
            if m:
                pos = m.end()
                continue
            c = line[pos]
            pos += 1
            w = width(c)
            if w == 0 or x >= cols:
                continue
            fg, bg = pen.colours()
            px, py = pad + x * cw, pad + y * ch
            if bg != BG:
                draw.rectangle([px, py, px + w * cw - 1, py + ch - 1], fill=bg)
            if c != " ":
                if w == 2:
                    font = wide
                elif 0x2800 <= ord(c) <= 0x28FF:
                    font = fallback
                else:
                    font = fonts[(pen.bold, pen.italic)]
                # Box-drawing and block glyphs fill the cell height so lines join up.
                draw.text((px, py + (ch - SIZE) // 2 - 1), c, font=font, fill=fg)
            if pen.underline:
                draw.line([px, py + ch - 2, px + w * cw - 1, py + ch - 2], fill=fg)
            x += w
    img = img.quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    img.save(out, optimize=True)


if __name__ == "__main__":
    main()
