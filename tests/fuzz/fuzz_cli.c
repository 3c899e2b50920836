/*  fuzz_cli.c - libFuzzer harness: command-line options through
    sim_config_from_args. The input is the argument list, one argument per
    NUL- or newline-separated piece. An input with --config or a '/' is
    skipped, so the harness reads no file outside the current directory
    (a realism name that is no preset is opened as a file) and none that
    may block (/dev/stdin); the INI loader has its own harness. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config/config.h"
#include "fuzz_support.h"

#define FZ_ARGS_MAX 64

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static sim_config_t *cfg;
    if (!cfg) {
        fz_init ();
        unsetenv ("SSL_SIM_LOG");
        cfg = malloc (sizeof *cfg);
        if (!cfg)
            abort ();
    }
    char *text = malloc (size + 1);
    if (!text)
        return 0;
    memcpy (text, data, size);
    text[size] = '\0';
    char *argv[FZ_ARGS_MAX];
    int argc = 0;
    bool files = false;
    for (size_t start = 0; start <= size && argc < FZ_ARGS_MAX;) {
        size_t end = start;
        while (end < size && text[end] != '\0' && text[end] != '\n')
            end++;
        text[end] = '\0';
        argv[argc++] = text + start;
        if (strstr (text + start, "--config") || strchr (text + start, '/'))
            files = true;
        start = end + 1;
    }
    if (!files) {
        sim_config_defaults (cfg);
        char err[512];
        sim_config_from_args (cfg, argc, argv, err, sizeof err);
    }
    free (text);
    return 0;
}
