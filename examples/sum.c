// Sums the numbers 1..n for a small nondeterministic n.
extern void abort(void);
extern unsigned int __VERIFIER_nondet_uint(void);
void reach_error(void) { abort(); }

int main(void) {
  unsigned int n = __VERIFIER_nondet_uint();
  if (n > 10) return 0;
  unsigned int sum = 0;
  for (unsigned int i = 1; i <= n; i++) {
    sum += i;
  }
  if (sum > 55) reach_error();
  return 0;
}
