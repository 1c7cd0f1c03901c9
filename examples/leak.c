// Loses its heap block when the input is negative.
#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int *p = malloc(sizeof(int));
  if (__VERIFIER_nondet_int() < 0) return 0;
  free(p);
  return 0;
}
