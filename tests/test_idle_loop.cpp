// The window's idle loop (app_frame_loop.cpp): it waits for input once nothing moves, but only
// after a few more frames, so that what appeared last (a demonstration's table landing when its
// measurement ends, with no input around it) is laid out and drawn right, not left at ImGui's
// first-frame layout (seen under Xvfb: the transfers lesson's step 2 table with one-letter columns).
#include <gtest/gtest.h>

#include "../app/app_input.hpp"

using rl::app::settleFramesAfter;

TEST(IdleLoop, FramesAfterAnEventOrAfterWorkEndsBeforeWaiting) {
  // An event: this frame and two more.
  EXPECT_EQ(settleFramesAfter(0, true, false, false), 2);
  EXPECT_EQ(settleFramesAfter(-5, true, false, false), 2);
  // Work that kept the window drawing has just ended: at least three frames to draw, whatever
  // the count had fallen to while it ran.
  EXPECT_EQ(settleFramesAfter(-40, false, true, false), 3);
  EXPECT_EQ(settleFramesAfter(5, false, true, false), 5);
  // Neither: one fewer, down to waiting.
  EXPECT_EQ(settleFramesAfter(3, false, false, false), 2);
  EXPECT_EQ(settleFramesAfter(0, false, false, false), -1);
  // Still working: no settle frames needed (the loop draws anyway), the count keeps falling.
  EXPECT_EQ(settleFramesAfter(1, false, true, true), 0);
  // Simulated: a result lands in a frame drawn while busy, then nothing happens. The loop must
  // draw at least two more frames before it waits.
  int settle = -10;
  bool wasAnimating = true;
  int drawn = 0;
  for (int frame = 0; frame < 10; ++frame) {
    const bool anim = false;  // the result has landed
    if (wasAnimating && !anim) settle = settleFramesAfter(settle, false, true, false);
    wasAnimating = anim;
    if (!anim && settle <= 0) break;  // the loop would wait here
    settle = settleFramesAfter(settle, false, false, false);
    ++drawn;
  }
  EXPECT_GE(drawn, 2);
}
