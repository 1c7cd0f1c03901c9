// Writes one element past the end of an array for some inputs.
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int a[4];
  int i = __VERIFIER_nondet_int();
  if (i >= 0 && i <= 4) a[i] = 1;
  return 0;
}
