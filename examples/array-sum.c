// A loop that reads one element too many (i <= n).
#include <stdio.h>

int sum(const int *a, int n) {
  int s = 0;
  for (int i = 0; i <= n; i++)
    s += a[i];
  return s;
}

int main(void) {
  int a[4] = {1, 2, 3, 4};
  printf("%d\n", sum(a, 4));
  return 0;
}
