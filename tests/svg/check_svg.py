#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Checks SVG pictures the way a reader would meet them: each is
well-formed XML, renders with rsvg-convert to a non-empty PNG, names its
axes (text elements of class "axis-label", at least two), and no two text
elements overlap and none leaves the picture, with a text's box estimated
as 0.6 * font-size per character wide and one font-size high.

usage: check_svg.py RSVG_CONVERT OUT_DIR FILE.svg...
Prints "FAIL: FILE: ..." for each fault; exit 1 if any."""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def font_size(el, inherited):
    fs = el.get("font-size")
    return float(fs) if fs else inherited


def boxes(root):
    """(x0, y0, x1, y1, text) of every text element."""
    base = font_size(root, 16.0)
    out = []
    for t in root.iter(NS + "text"):
        s = "".join(t.itertext())
        if not s.strip():
            continue
        fs = font_size(t, base)
        x, y = float(t.get("x", 0)), float(t.get("y", 0))
        w = 0.6 * fs * len(s)
        anchor = t.get("text-anchor", "start")
        x0 = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
        out.append((x0, y - 0.8 * fs, x0 + w, y + 0.2 * fs, s))
    return out


def check(rsvg, out_dir, path):
    faults = []
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        return ["not well-formed XML: %s" % e]
    if root.tag != NS + "svg":
        return ["root element is %s, not svg" % root.tag]
    png = os.path.join(out_dir, os.path.basename(path)[:-4] + ".png")
    r = subprocess.run([rsvg, path, "-o", png], capture_output=True, text=True)
    if r.returncode != 0:
        faults.append("rsvg-convert exit %d: %s" % (r.returncode, r.stderr.strip()))
    elif not os.path.exists(png) or os.path.getsize(png) < 100:
        faults.append("rsvg-convert wrote no PNG")
    else:
        with open(png, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                faults.append("rsvg-convert output is not a PNG")
    labels = [t for t in root.iter(NS + "text") if t.get("class") == "axis-label"]
    if len(labels) < 2:
        faults.append("%d axis labels, want one per axis (2 or more)" % len(labels))
    width, height = float(root.get("width", 0)), float(root.get("height", 0))
    bs = boxes(root)
    for b in bs:
        if b[0] < 0 or b[1] < 0 or b[2] > width or b[3] > height:
            faults.append("text leaves the %gx%g picture: '%s'" % (width, height, b[4]))
    for i in range(len(bs)):
        for j in range(i + 1, len(bs)):
            a, b = bs[i], bs[j]
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                faults.append("texts overlap: '%s' and '%s'" % (a[4], b[4]))
    return faults


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    rsvg, out_dir, bad = sys.argv[1], sys.argv[2], 0
    for path in sys.argv[3:]:
        faults = check(rsvg, out_dir, path)
        for f in faults:
            print("FAIL: %s: %s" % (path, f))
        if faults:
            bad = 1
        else:
            print("ok: %s" % path)
    return bad


if __name__ == "__main__":
    sys.exit(main())
