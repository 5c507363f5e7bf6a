#pragma once
// GLFW key events, queued. ImGui 1.86 reads key state once per frame, so a key pressed and
// released between two frames was never seen (quick taps were lost). The window's key callback
// queues each press and release; each frame takes at most one transition per key, so a tap
// shows as "down" for one frame and "up" the next, and six taps are six presses.
// A frame also ends after the press of a key that is not a modifier: the shortcut must see the
// modifiers as they were when the key went down (xdotool's Ctrl+Q releases Ctrl before Q; taken
// in one frame, Q arrived with Ctrl already up and the quit was lost).
#include <deque>
#include <vector>

namespace rl::app {

struct KeyEvent {
  int key, scancode, action, mods;  // action: GLFW_PRESS or GLFW_RELEASE (repeats are not queued)
};

constexpr int kKeyPress = 1;  // GLFW_PRESS
// GLFW_KEY_LEFT_SHIFT .. GLFW_KEY_RIGHT_SUPER (Shift, Ctrl, Alt, Super, left and right).
constexpr bool isModifierKey(int key) { return key >= 340 && key <= 347; }

class KeyEventQueue {
 public:
  void push(const KeyEvent& e) { pending_.push_back(e); }
  bool empty() const { return pending_.empty(); }
  // The events for this frame: in order, at most one per key; the rest wait for later frames.
  std::vector<KeyEvent> takeFrame() {
    std::vector<KeyEvent> now;
    std::deque<KeyEvent> later;
    std::vector<int> seen;
    bool blocked = false;  // once a key waits, later events of other keys keep their order behind it
    for (const KeyEvent& e : pending_) {
      bool again = false;
      for (int k : seen) again = again || k == e.key;
      if (again || blocked) {
        later.push_back(e);
        blocked = true;
        continue;
      }
      seen.push_back(e.key);
      now.push_back(e);
      if (e.action == kKeyPress && !isModifierKey(e.key)) blocked = true;  // seen with today's modifiers
    }
    pending_.swap(later);
    return now;
  }

 private:
  std::deque<KeyEvent> pending_;
};

}  // namespace rl::app
