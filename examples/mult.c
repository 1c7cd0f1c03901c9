// Doubles a nondeterministic value at most five times: 100 becomes 3200,
// so reach_error is reachable; the products stay within int.
extern void abort(void);
extern int __VERIFIER_nondet_int(void);
void reach_error(void) { abort(); }

int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x < 1 || x > 1000) return 0;
  int steps = 0;
  while (x < 100000 && steps < 5) {
    x = x * 2;
    steps++;
  }
  if (x == 3200) reach_error();
  return 0;
}
