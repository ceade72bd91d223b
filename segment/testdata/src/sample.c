#include <stdio.h>
#ifndef X
#define X 1
struct foo { int a; };
typedef struct { int b; } bar;
static int f(int x) { return g(x); }
int *h(void);
#endif
