/* gcc oracle for tpbsim's instruction layer (isa/oracle_test.go).
 *   oracle layout   prints "STRUCT path offset size" for every field, and "STRUCT sizeof N"
 *   oracle fill     fills every field of every struct with distinct values, prints "STRUCT hex"
 *   oracle parse    reads "STRUCT hex" lines, prints "STRUCT path=value" for every field
 *   oracle bits     for each byte value, prints "b TYPE sub=value ..." for every bitfield type
 * The structs and their field lists are generated (tpb_structs.h, tpb_oracle.h); this file only
 * walks them, so a struct added to the spec is checked with no edit here. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "tpb_oracle.h"

#define L_X(S, name, m) printf("%s %s %zu %zu\n", sname, name, offsetof(S, m), sizeof(((S *)0)->m));
#define L_XA(S, name, m, n) for (int i = 0; i < (n); i++) \
    printf("%s %s[%d] %zu %zu\n", sname, name, i, offsetof(S, m) + i * sizeof(((S *)0)->m[0]), sizeof(((S *)0)->m[0]));
#define PV(v) do { if ((__typeof__(v))-1 < 0) printf("%lld", (long long)(v)); \
                   else printf("%llu", (unsigned long long)(v)); } while (0)
#define D_X(S, name, m) printf("%s %s=", sname, name); PV(p->m); printf("\n");
#define D_XA(S, name, m, n) for (int i = 0; i < (n); i++) { printf("%s %s[%d]=", sname, name, i); PV(p->m[i]); printf("\n"); }
#define V(k) (0x9E3779B97F4A7C15ULL * (unsigned long long)(k) ^ ((unsigned long long)(k) << 29))
#define F_X(S, name, m) p->m = (__typeof__(p->m))V(++k);
#define F_XA(S, name, m, n) for (int i = 0; i < (n); i++) p->m[i] = (__typeof__(p->m[i]))V(++k);

#define DEF(NAME, S, FIELDS, OPC) \
    static void layout_##NAME(void) { const char *sname = #NAME; \
        printf("%s sizeof %zu\n", sname, sizeof(S)); FIELDS(L_X, L_XA, S) } \
    static void dump_##NAME(const S *p) { const char *sname = #NAME; FIELDS(D_X, D_XA, S) } \
    static void fill_##NAME(void) { S s; S *p = &s; unsigned long long k = OPC * 1000ULL; \
        memset(&s, 0, sizeof s); FIELDS(F_X, F_XA, S) p->header.opcode = OPC; \
        printf("%s ", #NAME); for (size_t i = 0; i < sizeof s; i++) printf("%02x", ((unsigned char *)&s)[i]); \
        printf("\n"); }
FOR_EACH_STRUCT(DEF)

#define CALL_LAYOUT(NAME, S, FIELDS, OPC) layout_##NAME();
#define CALL_FILL(NAME, S, FIELDS, OPC) fill_##NAME();
#define PARSE(NAME, S, FIELDS, OPC) if (!strcmp(name, #NAME)) { S s; memcpy(&s, buf, sizeof s); dump_##NAME(&s); continue; }

static int unhex(const char *h, unsigned char *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(h + 2 * i, "%2x", &v) != 1) return -1;
        out[i] = (unsigned char)v;
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "layout")) {
        FOR_EACH_STRUCT(CALL_LAYOUT)
        printf("TENSOR4D sizeof %zu\n", sizeof(NEURON_ISA_TPB_TENSOR4D));
        return 0;
    }
    if (!strcmp(mode, "fill")) {
        FOR_EACH_STRUCT(CALL_FILL)
        return 0;
    }
    if (!strcmp(mode, "bits")) {
        for (int b = 0; b < 256; b++) print_bits(b);
        return 0;
    }
    if (!strcmp(mode, "parse")) {
        char name[64], hex[200];
        unsigned char buf[64];
        while (scanf("%63s %199s", name, hex) == 2) {
            if (strlen(hex) != 128 || unhex(hex, buf, 64)) { fprintf(stderr, "bad line\n"); return 2; }
            FOR_EACH_STRUCT(PARSE)
            fprintf(stderr, "unknown struct %s\n", name);
            return 2;
        }
        return 0;
    }
    fprintf(stderr, "usage: oracle layout|fill|parse|bits\n");
    return 2;
}
