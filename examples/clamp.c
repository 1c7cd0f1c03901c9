// A program of one's own: assert() of <assert.h>, an input from
// __VERIFIER_nondet_int() (any int), and a bug on line 8.
#include <assert.h>
extern int __VERIFIER_nondet_int(void);

int clamp(int v, int lo, int hi) {
  if (v < lo) return lo;
  if (v > hi) return lo;
  return v;
}

int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = clamp(x, 0, 100);
  assert(y >= 0 && y <= 100);
  assert(x <= 100 || y == 100);
  return 0;
}
