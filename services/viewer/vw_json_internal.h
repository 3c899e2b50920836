/*  vw_json_internal.h - what the viewer's JSON encoders share (vw_json.c
    and vw_json_game.c): one way to start a message, to write a number the
    page draws, and to print. Private to this folder.
*/
#ifndef VW_JSON_INTERNAL_H_INCLUDED
#define VW_JSON_INTERNAL_H_INCLUDED

#include <cjson/cJSON.h>

/* A new object {"type": type}, yours (hand it to vw_json_print), or NULL
   when out of memory. */
cJSON *vw_json_typed (const char *type);

/* Print and free `root` (NULL: nothing to print): the one exit of every
   encoder. Returns the text, yours to free(), or NULL when out of memory. */
char *vw_json_print (cJSON *root);

/* Add v under `key` (a string literal, kept by pointer) as the page needs
   it: rounded to a micrometre (or a microsecond), as cJSON raw text. */
void vw_json_num (cJSON *obj, const char *key, double v);

#endif
