#pragma once
// The GL loader for everything in gui/ and app/ (glad, generated at configure time).
#include <glad/gl.h>
