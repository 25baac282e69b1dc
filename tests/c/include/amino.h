/* Test stand-in for <amino.h>: only what generated scenes need (see record.c). */
#ifndef RECORD_AMINO_H
#define RECORD_AMINO_H
#include <stddef.h>
#include <stdint.h>
#endif
