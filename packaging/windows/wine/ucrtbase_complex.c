/* Test-time proxy for ucrtbase.dll under Wine 8.0. NEVER shipped: compiled by
 * packaging/windows/wine/prefix.sh into a throw-away Wine prefix and nowhere else (real Windows has
 * these functions in its own Universal CRT).
 *
 * Why: numpy >= 2.1 calls crealf() and its relatives from the Universal CRT while it is imported;
 * Wine 8.0's ucrtbase.dll exports them only as "unimplemented" stubs, which abort the process. prefix.sh
 * builds a ucrtbase.dll whose every export is forwarded to a renamed copy of Wine's own ucrtbase
 * (ucrtwine.dll), except the functions below, which take the parts of a complex number apart or
 * build one. They are exact, not approximations.
 *
 * ABI (Microsoft x64, <complex.h> of the UCRT): _Fcomplex is { float _Val[2] } (8 bytes: passed and
 * returned in a general register); _Dcomplex and _Lcomplex are { double _Val[2] } (16 bytes: passed by
 * reference, returned through a hidden pointer), since MSVC's long double is a double. mingw-w64's gcc
 * follows the same convention for these structs, so plain C with these struct types matches it. Each
 * function is named proxy_<name>; prefix.sh exports it under <name>.
 */

typedef struct {
    float val[2];
} Fcomplex;

typedef struct {
    double val[2];
} Dcomplex; /* also _Lcomplex: long double is double in the Microsoft ABI */

float proxy_crealf(Fcomplex z) { return z.val[0]; }
float proxy_cimagf(Fcomplex z) { return z.val[1]; }
double proxy_creal(Dcomplex z) { return z.val[0]; }
double proxy_cimag(Dcomplex z) { return z.val[1]; }
double proxy_creall(Dcomplex z) { return z.val[0]; }
double proxy_cimagl(Dcomplex z) { return z.val[1]; }

Fcomplex proxy_conjf(Fcomplex z)
{
    z.val[1] = -z.val[1];
    return z;
}

Dcomplex proxy_conj(Dcomplex z)
{
    z.val[1] = -z.val[1];
    return z;
}

Dcomplex proxy_conjl(Dcomplex z) { return proxy_conj(z); }

Fcomplex proxy__FCbuild(float re, float im)
{
    Fcomplex z = {{re, im}};
    return z;
}

Dcomplex proxy__Cbuild(double re, double im)
{
    Dcomplex z = {{re, im}};
    return z;
}

Dcomplex proxy__LCbuild(double re, double im) { return proxy__Cbuild(re, im); }
