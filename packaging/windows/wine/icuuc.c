/* Test-time stand-in for Windows' system icuuc.dll under Wine. NEVER shipped: it is compiled by
 * packaging/windows/wine/prefix.sh into a throw-away Wine prefix and nowhere else.
 *
 * Why: Qt6Core.dll (PySide6's Windows wheel) imports about 20 ucnv_* functions from the ICU that
 * Windows 10 1903+ ships as C:\Windows\System32\icuuc.dll; Wine has no such DLL, so without this the
 * loader refuses Qt6Core.dll and nothing Qt-based starts. Qt uses ICU only to convert text in encodings
 * it does not know itself (QStringConverter by name); kanon reads and writes files with Python's codecs,
 * never through Qt's converters.
 *
 * What it does: it behaves as an ICU with no converter data. ucnv_open() fails with
 * U_FILE_ACCESS_ERROR and returns NULL (so Qt falls back to its built-in codecs), no converter is
 * listed, and the functions that need an open converter are never reached. The signatures follow ICU's
 * ucnv.h / ucnv_err.h (ICU 4C API, the same on every platform); UErrorCode is an int.
 */
#include <stddef.h>
#include <stdint.h>

typedef int UErrorCode;
typedef uint16_t UChar;
typedef int8_t UBool;
typedef struct UConverter UConverter;
typedef void *UConverterCallback; /* function pointers; never called here */

enum { U_ZERO_ERROR = 0, U_FILE_ACCESS_ERROR = 4 };

static int failed(UErrorCode *err)
{
    return err != NULL && *err > U_ZERO_ERROR;
}

static void set_error(UErrorCode *err)
{
    if (err != NULL && !failed(err))
        *err = U_FILE_ACCESS_ERROR;
}

UConverter *ucnv_open(const char *name, UErrorCode *err)
{
    (void)name;
    set_error(err);
    return NULL;
}

void ucnv_close(UConverter *cnv) { (void)cnv; }

void ucnv_reset(UConverter *cnv) { (void)cnv; }

int32_t ucnv_countAvailable(void) { return 0; }

const char *ucnv_getAvailableName(int32_t n)
{
    (void)n;
    return NULL;
}

const char *ucnv_getName(const UConverter *cnv, UErrorCode *err)
{
    (void)cnv;
    set_error(err);
    return NULL;
}

const char *ucnv_getStandardName(const char *name, const char *standard, UErrorCode *err)
{
    (void)name;
    (void)standard;
    set_error(err);
    return NULL;
}

int8_t ucnv_getMaxCharSize(const UConverter *cnv)
{
    (void)cnv;
    return 1;
}

int32_t ucnv_fromUCountPending(const UConverter *cnv, UErrorCode *err)
{
    (void)cnv;
    set_error(err);
    return 0;
}

int32_t ucnv_toUCountPending(const UConverter *cnv, UErrorCode *err)
{
    (void)cnv;
    set_error(err);
    return 0;
}

void ucnv_fromUnicode(UConverter *cnv, char **target, const char *targetLimit, const UChar **source,
                      const UChar *sourceLimit, int32_t *offsets, UBool flush, UErrorCode *err)
{
    (void)cnv, (void)target, (void)targetLimit, (void)source, (void)sourceLimit, (void)offsets, (void)flush;
    set_error(err);
}

void ucnv_toUnicode(UConverter *cnv, UChar **target, const UChar *targetLimit, const char **source,
                    const char *sourceLimit, int32_t *offsets, UBool flush, UErrorCode *err)
{
    (void)cnv, (void)target, (void)targetLimit, (void)source, (void)sourceLimit, (void)offsets, (void)flush;
    set_error(err);
}

void ucnv_getFromUCallBack(const UConverter *cnv, UConverterCallback *action, const void **context)
{
    (void)cnv;
    if (action != NULL)
        *action = NULL;
    if (context != NULL)
        *context = NULL;
}

void ucnv_getToUCallBack(const UConverter *cnv, UConverterCallback *action, const void **context)
{
    ucnv_getFromUCallBack(cnv, action, context);
}

void ucnv_setFromUCallBack(UConverter *cnv, UConverterCallback action, const void *context,
                           UConverterCallback *oldAction, const void **oldContext, UErrorCode *err)
{
    (void)action, (void)context;
    ucnv_getFromUCallBack(cnv, oldAction, oldContext);
    set_error(err);
}

void ucnv_setToUCallBack(UConverter *cnv, UConverterCallback action, const void *context,
                         UConverterCallback *oldAction, const void **oldContext, UErrorCode *err)
{
    ucnv_setFromUCallBack(cnv, action, context, oldAction, oldContext, err);
}

void ucnv_cbFromUWriteUChars(void *args, const UChar **source, const UChar *sourceLimit, int32_t offsetIndex,
                             UErrorCode *err)
{
    (void)args, (void)source, (void)sourceLimit, (void)offsetIndex;
    set_error(err);
}

void ucnv_cbToUWriteUChars(void *args, const UChar *source, int32_t length, int32_t offsetIndex,
                           UErrorCode *err)
{
    (void)args, (void)source, (void)length, (void)offsetIndex;
    set_error(err);
}

/* ICU's standard substitution callbacks (exported functions, passed to ucnv_set*CallBack by address) */
void UCNV_FROM_U_CALLBACK_SUBSTITUTE(const void *context, void *args, const UChar *codeUnits, int32_t length,
                                     int32_t codePoint, int reason, UErrorCode *err)
{
    (void)context, (void)args, (void)codeUnits, (void)length, (void)codePoint, (void)reason;
    set_error(err);
}

void UCNV_TO_U_CALLBACK_SUBSTITUTE(const void *context, void *args, const char *codeUnits, int32_t length,
                                   int reason, UErrorCode *err)
{
    (void)context, (void)args, (void)codeUnits, (void)length, (void)reason;
    set_error(err);
}
