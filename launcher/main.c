/*  main.c - the ssl-sim command (placeholder until the launcher lands). */
#include <stdio.h>

int
main (void)
{
    printf ("ssl-sim %s\n", SSL_SIM_VERSION);
    return 0;
}
