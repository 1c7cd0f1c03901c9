// Counts up to a nondeterministic bound: the counter ends at the bound.
extern void abort(void);
extern int __VERIFIER_nondet_int(void);
void reach_error(void) { abort(); }

int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 1000) return 0;
  int i = 0;
  int s = 0;
  // s is twice i at the loop head
  while (i < n) {
    i++;
    s += 2;
  }
  if (s != 2 * n) reach_error();
  return 0;
}
