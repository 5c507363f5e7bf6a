#!/usr/bin/env python3
"""Drives ReduceLab's web page in headless Chromium through the DevTools protocol (python3-websocket):
opens the shipped H200 recording from the page's folder, steps its lesson, switches views, exports a
view and a figure, and takes screenshots. Fails (exit 1) on a console error or an uncaught exception,
a blank canvas, or an export that is not the figure it should be. Used by scripts/test-web.sh.

usage: drive_page.py URL_OF_INDEX CHROMIUM_DEBUG_PORT OUT_DIR
"""
import base64
import os
import shutil
import json
import subprocess
import sys
import time
import urllib.request

import websocket

base, port, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
failures = []
console = []
chooser = []  # Page.fileChooserOpened events (File > Open in the app's menu)


def fail(text):
    print("FAIL: " + text)
    failures.append(text)


def page_socket():
    for _ in range(100):
        try:
            targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json"))
            pages = [t for t in targets if t.get("type") == "page"]
            if pages:
                return websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=120)
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("chromium's DevTools endpoint did not answer")


ws = page_socket()
next_id = 0


def note(msg):
    """Console messages and exceptions, whatever call they arrive during."""
    method, p = msg.get("method"), msg.get("params", {})
    if method == "Page.fileChooserOpened":
        chooser.append(p)
    elif method == "Runtime.consoleAPICalled":
        text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
        console.append((p.get("type"), text))
        print(f"console.{p.get('type')}: {text}")
    elif method == "Runtime.exceptionThrown":
        d = p.get("exceptionDetails", {})
        text = d.get("exception", {}).get("description") or d.get("text", "")
        console.append(("exception", text))
        print("exception: " + text)
    elif method == "Log.entryAdded":
        e = p.get("entry", {})
        console.append((e.get("level"), e.get("text", "") + " " + e.get("url", "")))
        print(f"log.{e.get('level')}: {e.get('text')} {e.get('url', '')}")


def call(method, **params):
    global next_id
    next_id += 1
    ws.send(json.dumps({"id": next_id, "method": method, "params": params}))
    while True:
        msg = json.loads(ws.recv())
        if msg.get("id") == next_id:
            if "error" in msg:
                raise RuntimeError(f"{method}: {msg['error']}")
            return msg.get("result", {})
        note(msg)


def evaluate(expr):
    r = call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
    if "exceptionDetails" in r:
        raise RuntimeError(f"{expr}: {r['exceptionDetails']}")
    return r.get("result", {}).get("value")


def pump(seconds):
    """Lets the page run, reading events meanwhile."""
    end = time.time() + seconds
    while time.time() < end:
        evaluate("0")
        time.sleep(0.05)


def wait_for(expr, seconds, what):
    end = time.time() + seconds
    while time.time() < end:
        v = evaluate(expr)
        if v:
            return v
        time.sleep(0.1)
    fail(f"{what}: not within {seconds} s ({expr})")
    return None


def frames_after(n):
    start = evaluate("window.reducelab ? window.reducelab.frames : 0") or 0
    wait_for(f"window.reducelab.frames >= {start + n}", 60, f"{n} frames")


def state():
    evaluate("window.reducelab.command('state')")
    frames_after(2)
    for kind, text in reversed(console):
        if text.startswith("reducelab-state "):
            return json.loads(text[len("reducelab-state "):])
    return {}


def stddev(png):
    r = subprocess.run(["identify", "-format", "%[fx:standard_deviation]", png], capture_output=True, text=True)
    return float(r.stdout.strip() or 0)


def screenshot(name):
    data = call("Page.captureScreenshot", format="png")["data"]
    path = f"{out}/{name}.png"
    with open(path, "wb") as f:
        f.write(base64.b64decode(data))
    s = stddev(path)
    print(f"screenshot {path}: standard deviation {s:.4f}")
    if s < 0.02:
        fail(f"{path} is blank (standard deviation {s:.4f})")
    return path


call("Runtime.enable")
call("Log.enable")
call("Page.enable")
# The desktop's default window size, so that screenshots compare with its headless PNGs.
call("Emulation.setDeviceMetricsOverride", width=1600, height=900, deviceScaleFactor=1, mobile=False)
t0 = time.time()
call("Page.navigate", url=f"{base}?recording=recordings/upc.reducelab")
# The first load may install the isolation service worker and load again.
wait_for("window.reducelab && window.reducelab.frames >= 2", 120, "the first frames")
first = evaluate("window.reducelab.firstFrameMs")
print(f"first frame: {first:.0f} ms after navigation (load {time.time() - t0:.1f} s wall, swiftshader)" if first else "")
with open(f"{out}/first-frame-ms.txt", "w") as f:
    f.write(f"{first:.0f}\n" if first else "unknown\n")
frames_after(20)
s = state()
for _ in range(20):  # the layout settled: the same panels two readings in a row
    frames_after(5)
    again = state()
    if again.get("views") == s.get("views"):
        break
    s = again
print("state after opening:", s)
if not s.get("recording"):
    fail("the shipped recording is not open")
if not s.get("lesson"):
    fail("the recording's lesson did not open")
if not s.get("trace"):
    fail("no trace is shown")
opened_state = s
screenshot("01-recording-opened")

evaluate("window.reducelab.command('step 2')")
frames_after(30)
s = state()
print("state after step 2:", s)
if s.get("step") != 2:
    fail(f"the lesson is at step {s.get('step')}, not 2")
screenshot("02-lesson-step-3")

for view in ["warp", "bank", "tree", "coalescing"]:
    evaluate(f"window.reducelab.command('view {view}')")
    frames_after(10)
    s = state()
    if s.get("view") != view:
        fail(f"the view is {s.get('view')}, not {view}")
    screenshot(f"03-view-{view}")

# The coalescing view at the load step (global loads: the coalescing shader draws), exported as PNG.
evaluate("window.reducelab.command('trace-step 0')")
frames_after(10)
screenshot("03-view-coalescing-load")
evaluate("window.reducelab.command('export-view png')")
frames_after(5)
evaluate("window.reducelab.command('view warp')")
frames_after(10)
evaluate("window.reducelab.command('export-view png')")
evaluate("window.reducelab.command('export-figure svg')")
evaluate("window.reducelab.command('export-table')")
evaluate("window.reducelab.command('save-session')")
frames_after(10)
names = evaluate("Object.keys(window.reducelab.exports)") or []
print("exports:", names)
for name in names:
    b64 = evaluate(f"(() => {{ const b = window.reducelab.exports['{name}']; let s = ''; "
                   f"for (let i = 0; i < b.length; i += 8192) s += String.fromCharCode.apply(null, b.subarray(i, i + 8192)); "
                   f"return btoa(s); }})()")
    with open(f"{out}/export-{name}", "wb") as f:
        f.write(base64.b64decode(b64))
if "view-coalescing.png" not in names or stddev(f"{out}/export-view-coalescing.png") < 0.02:
    fail("the coalescing view at the load step was not exported, or is blank")
views = [n for n in names if n.startswith("view-warp") and n.endswith(".png")]
figures = [n for n in names if n.endswith(".svg")]
if not views:
    fail("the warps view was not exported as PNG")
else:
    path = f"{out}/export-{views[0]}"
    if stddev(path) < 0.02:
        fail(f"the exported view {path} is blank")
if not figures:
    fail("no figure was exported as SVG")
else:
    svg = open(f"{out}/export-{figures[0]}", encoding="utf-8").read()
    # The lesson's bandwidth plot of the recorded H200 runs: an SVG with its title, axes and points.
    if not svg.startswith("<?xml") or "<svg" not in svg or not svg.rstrip().endswith("</svg>"):
        fail("the SVG figure is not an SVG document")
    if svg.count("<polygon") + svg.count("<circle") < 3:
        fail("the SVG figure has no data points")
    # The recording's runs: the title, the H200's peak and the last kernels' series.
    for text in ["Bandwidth of each run", "GB/s", "theoretical peak 4814 GB/s", "k7 float64", "k7 float32"]:
        if text not in svg:
            fail(f"the SVG figure lacks '{text}'")

# The results table in every table file format, with the recording's rows.
for ext in ["csv", "md", "tex"]:
    if f"results.{ext}" not in names:
        fail(f"the results table was not exported as .{ext}")
    else:
        text = open(f"{out}/export-results.{ext}", encoding="utf-8").read()
        if "k7" not in text or text.count("\n") < 5:
            fail(f"results.{ext} does not hold the recording's runs")

# The session, saved as a recording (zlib-compressed, the format's magic first).
if "session.reducelab" not in names:
    fail("the session was not saved")
elif open(f"{out}/export-session.reducelab", "rb").read(6) != b"\x89RLREC":
    fail("session.reducelab is not a ReduceLab recording")

# A configuration the recording lacks: its trace comes from the CPU model (on a Web Worker).
evaluate("window.reducelab.command('kernel k8')")
evaluate("window.reducelab.command('block 128')")
frames_after(20)
wait_for("(window.reducelab.command('state'), true)", 5, "state")
s = state()
print("state with k8, block 128:", s)
if s.get("kernel") != "k8" or s.get("block") != 128 or not s.get("source", "").startswith("CPU model"):
    fail(f"k8 at block 128 is not traced by the CPU model: {s}")
screenshot("04-cpu-model-k8-b128")

# The desktop's headless frame of the same state (scripts/test-web.sh renders it when a desktop build is
# there): the Views panel, where the trace shaders draw, must look the same.
desktop_png, desktop_layout = f"{out}/desktop-01.png", f"{out}/desktop-01.json"
# Without a desktop build, its Views panel of this state as committed (tests/web/reference/, from the
# desktop's headless frame at 1600x900).
reference = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference/desktop-views-upc-step1.png")
try:
    layout = json.load(open(desktop_layout))
except OSError:
    layout = None
    print(f"no desktop build: comparing with {reference}")
wx, wy, ww, wh = opened_state.get("views", [0, 0, 0, 0])
dx, dy, dw, dh = [round(v) for v in layout["panels"]["Views"]] if layout else (352, 196, 800, 469)
if (dw, dh) != (round(ww), round(wh)):
    fail(f"the Views panel is {ww}x{wh} in the browser, {dw}x{dh} on the desktop")
else:
    if layout:
        subprocess.run(["/usr/bin/convert", desktop_png, "-crop", f"{dw}x{dh}+{dx}+{dy}", "+repage", f"{out}/desktop-views.png"], check=True)
    else:
        shutil.copyfile(reference, f"{out}/desktop-views.png")
    subprocess.run(["/usr/bin/convert", f"{out}/01-recording-opened.png", "-crop", f"{dw}x{dh}+{round(wx)}+{round(wy)}", "+repage",
                    f"{out}/web-views.png"], check=True)
    r = subprocess.run(["/usr/bin/compare", "-metric", "RMSE", f"{out}/desktop-views.png", f"{out}/web-views.png",
                        f"{out}/views-difference.png"], capture_output=True, text=True)
    rmse = float(r.stderr.split("(")[1].split(")")[0]) if "(" in r.stderr else 1.0
    print(f"Views panel, browser against desktop: RMSE {rmse:.4f} (difference: {out}/views-difference.png)")
    if rmse > 0.05:
        fail(f"the browser's Views panel differs from the desktop's (RMSE {rmse:.4f} > 0.05)")

# A lesson file beside the page (the folder's lessons/), as a teacher publishes one.
call("Page.navigate", url=f"{base}?lesson=lessons/harris.lesson")
wait_for("window.reducelab && window.reducelab.frames >= 20", 120, "the lesson page's frames")
s = state()
print("state with lessons/harris.lesson:", s)
if not s.get("lesson") or not s.get("trace"):
    fail(f"lessons/harris.lesson did not open with a trace: {s}")
screenshot("05-lesson-file-harris")

# The shipped recording dropped on the page (the lesson page has none open).
recording = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../assets/recordings/upc.reducelab"))
drag = {"items": [], "files": [recording], "dragOperationsMask": 1}
for kind in ("dragEnter", "dragOver", "drop"):
    call("Input.dispatchDragEvent", type=kind, x=700, y=400, data=drag)
frames_after(30)
s = state()
print("state after the drop:", s)
if not s.get("recording"):
    fail(f"the recording dropped on the page did not open: {s}")
screenshot("05b-dropped-recording")

# The page's file picker (what the Open button and File > Open show): the shipped recording chosen.
call("Page.navigate", url=f"{base}?lesson=lessons/harris.lesson")
wait_for("window.reducelab && window.reducelab.frames >= 20", 120, "the lesson page's frames")
root = call("DOM.getDocument")["root"]["nodeId"]
picker = call("DOM.querySelector", nodeId=root, selector="#file")["nodeId"]
call("DOM.setFileInputFiles", files=[recording], nodeId=picker)
wait_for("(window.reducelab.command('state'), true)", 5, "state")
frames_after(30)
s = state()
print("state after the picker:", s)
if not s.get("recording"):
    fail(f"the recording chosen in the page's picker did not open: {s}")
screenshot("06-picker-recording")

# The window made smaller: the canvas and the layout follow it (nothing drawn past the page).
call("Emulation.setDeviceMetricsOverride", width=1280, height=720, deviceScaleFactor=1, mobile=False)
frames_after(30)
s = state()
print("state at 1280x720:", s)
vx, vy, vw, vh = s.get("views", [0, 0, 0, 0])
if vw <= 0 or vx + vw > 1280 or vy + vh > 720:
    fail(f"the Views panel {s.get('views')} does not fit a 1280x720 page")
screenshot("07-resized-1280x720")

# File > Open in the app's own menu, clicked as a user would: the browser's file chooser must open (a
# click is the user activation browsers ask for), and the chosen file opens.


def click(x, y):
    for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
        call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)
        frames_after(3)


call("Page.setInterceptFileChooserDialog", enabled=True)
evaluate("window.reducelab.command('view bank')")
click(22, 11)
screenshot("08-file-menu")
click(90, 34)
end = time.time() + 20
while time.time() < end and not chooser:
    ws.settimeout(1)
    try:
        msg = json.loads(ws.recv())
    except websocket.WebSocketTimeoutException:
        continue
    note(msg)
ws.settimeout(120)
if not chooser:
    fail("File > Open did not open the browser's file chooser")
else:
    call("DOM.setFileInputFiles", files=[recording], backendNodeId=chooser[0]["backendNodeId"])
    frames_after(30)
    s = state()
    print("state after File > Open:", s)
    if not s.get("recording") or s.get("view") != "warp":
        fail(f"File > Open did not open the recording (its lesson shows the warp view): {s}")
    screenshot("09-file-open-recording")

# The editor (your own kernel): in the browser it says in one sentence what compiling and checking need.
evaluate("window.reducelab.command('view editor')")
frames_after(20)
screenshot("10-editor")

errors = [(k, t) for k, t in console if k in ("error", "exception", "assert")]
for k, t in errors:
    fail(f"console {k}: {t}")
print("web test: " + ("PASS" if not failures else f"{len(failures)} failure(s)"))
sys.exit(1 if failures else 0)
