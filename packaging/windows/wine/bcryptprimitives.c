/* Test-time stand-in for Windows' system bcryptprimitives.dll under Wine. NEVER shipped: it is compiled
 * by packaging/windows/wine/prefix.sh into a throw-away Wine prefix and nowhere else.
 *
 * Why: the `cryptography` package (password-protected projects, kanon_engine/sealed.py) is built with
 * Rust, whose standard library (1.78+) imports ProcessPrng from bcryptprimitives.dll, the random-number
 * generator every Windows 10/11 ships. Wine 8.0 has no such DLL, so the loader refuses
 * cryptography's _rust.pyd ("DLL load failed while importing _rust") and protected projects could
 * never be tested on the Windows bundle.
 *
 * What it does: ProcessPrng(buffer, length) fills the buffer from Wine's own system generator,
 * advapi32's SystemFunction036 (RtlGenRandom), in chunks its ULONG length can hold. Windows documents
 * ProcessPrng as always returning TRUE; this returns FALSE only if Wine's generator fails.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length); /* RtlGenRandom, advapi32.dll */

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000u ? 0x40000000u : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
