# Sourced by the Xvfb tests: starts Xvfb on a display it claims itself (-displayfd: the server
# takes the first free number under its own lock and says which; a number picked by looking for
# /tmp/.X*-lock could be taken meanwhile, or belong to a stale server that vanished mid-test),
# or on $XVFB_DISPLAY when given. Sets XVFB (its pid) and exports DISPLAY; fails with one line
# when no server answers. Needs OUT and SCREEN.
start_xvfb() {
  local numberFile="$OUT/xvfb-display"
  rm -f "$numberFile"
  if [ -n "${XVFB_DISPLAY:-}" ]; then
    Xvfb "$XVFB_DISPLAY" -screen 0 "${SCREEN}x24" -nolisten tcp >/dev/null 2>&1 &
    XVFB=$!
    DISPLAY=$XVFB_DISPLAY
  else
    Xvfb -displayfd 3 -screen 0 "${SCREEN}x24" -nolisten tcp 3>"$numberFile" >/dev/null 2>&1 &
    XVFB=$!
    for _ in $(seq 100); do [ -s "$numberFile" ] && break; sleep 0.1; done
    DISPLAY=:$(head -1 "$numberFile" 2>/dev/null)
  fi
  export DISPLAY
  for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "FAIL: Xvfb did not start (display '$DISPLAY')"
  exit 1
}
