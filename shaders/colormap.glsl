// Colour ramp for values in [0,1]: dark violet -> blue -> teal -> green -> yellow,
// piecewise linear through five control colours (readable on projectors, monotone in brightness).
vec3 rampColor(float t) {
  const vec3 c[5] = vec3[5](vec3(0.27, 0.00, 0.33), vec3(0.23, 0.32, 0.55), vec3(0.13, 0.57, 0.55),
                            vec3(0.37, 0.79, 0.38), vec3(0.99, 0.91, 0.14));
  float x = clamp(t, 0.0, 1.0) * 4.0;
  int i = min(int(x), 3);
  return mix(c[i], c[i + 1], x - float(i));
}
