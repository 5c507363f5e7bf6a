#!/usr/bin/env bash
# The screenshot set of issue 25: every shipped lesson's steps at 1280x720, 1600x900 and 1920x1080,
# normal and in presentation mode, from the CPU model (`reducelab lesson NAME --out`), and the
# shipped H200 recording's UPC lesson in every presentation panel (the layout test, which also
# checks that no text is cut). Usage: scripts/screenshot-set.sh [OUT] [BUILD]  (OUT: /tmp/reducelab-shots)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/reducelab-shots}"
build="${2:-build-ci}"
bin="$build/app/reducelab"
mkdir -p "$out"
for lesson in $(ls assets/lessons/*.lesson | xargs -n1 basename | sed 's/\.lesson$//'); do
  for size in 1280x720 1600x900 1920x1080; do
    for mode in normal presentation; do
      dir="$out/cpu-model/$lesson/$size-$mode"
      mkdir -p "$(dirname "$dir")"
      flag=""; [ "$mode" = presentation ] && flag="--presentation"
      "$bin" --headless $flag --size "$size" lesson "$lesson" --out "$dir" --force >/dev/null 2>&1 ||
        echo "screenshot-set: $lesson $size $mode failed" >&2
    done
  done
done
# The recording: 3840x2160 frames with the display in their lower-left corner, cropped.
raw="$out/recording-raw"
rm -rf "$raw"; mkdir -p "$raw" "$out/recording"
REDUCELAB_PRESENT_SHOTS="$raw" "$build/tests/reducelab_tests" \
  --gtest_filter='LayoutMatrix.PresentationWithARecordingFillsTheScreenWithWholeReadableText' >/dev/null
for f in "$raw"/*.png; do
  name=$(basename "$f"); size=${name%%-step*}; w=${size%x*}; h=${size#*x}
  convert "$f" -crop "${w}x${h}+0+$((2160 - h))" +repage "$out/recording/$name"
done
rm -rf "$raw"
echo "screenshot-set: $(find "$out" -name '*.png' | wc -l) screenshots in $out"
