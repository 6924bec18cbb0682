; NSIS 3 script for kanon's Windows (x64) installer: one setup.exe holding the whole PyInstaller bundle;
; nothing is downloaded while installing or afterwards. This file is the one description of what is
; installed where; packaging/build_windows.sh runs it (Debian's makensis, native):
;
;   makensis -INPUTCHARSET UTF8 -DVERSION=0.1.0 -DBUNDLE=dist/windows/kanon \
;       -DOUTFILE=dist/installers/kanon-0.1.0-windows-x64-setup.exe [-DCOMPRESSION=fast] kanon.nsi
;
; What it does (packaging/windows/README.md has the user's view):
; - per user by default, with no administrator rights: %LOCALAPPDATA%\Programs\kanon, registry under
;   HKCU. "For everyone" (C:\Program Files\kanon, HKLM) is a choice on the second page or /ALLUSERS;
;   it asks Windows for administrator rights only then.
; - Start-menu entry; Apps & Features entry with an uninstaller; kanon in "Open with" for .json files
;   (projects are saved as NAME.kanon.json: Windows associates by the last extension only, so kanon
;   is offered for JSON files but does not take them over from the program the user has chosen).
; - runs the installed copy's `kanon-console.exe --self-test` and keeps its output in self-test.log.
; - the uninstaller removes exactly what was installed: never the user's projects, data, settings
;   (HKCU\Software\kanon) or log (%APPDATA%\kanon\kanon), nor files the user put into the folder.
; - the wizard speaks English, German, French or Spanish, following Windows' display language.
;
; Command line (for IT departments):  /S silent   /ALLUSERS or /CURRENTUSER   /NOSELFTEST
;   /D=C:\path (last)   Exit codes: 0 done; 2 cancelled or failed; 3 installed but the self-test failed;
;   740 /ALLUSERS without administrator rights in silent mode.

Unicode true
Target amd64-unicode ; a 64-bit installer for 64-bit kanon (the 32-bit stub does nothing under 64-bit-only Wine)
ManifestDPIAware true
ManifestSupportedOS Win10
RequestExecutionLevel user

!ifndef VERSION
  !error "pass -DVERSION=... -DBUNDLE=... -DOUTFILE=... (see the top of this file)"
!endif
!ifndef BUNDLE
  !error "pass -DBUNDLE=dist/windows/kanon (the PyInstaller bundle)"
!endif
!ifndef OUTFILE
  !error "pass -DOUTFILE=path/of/setup.exe"
!endif
!ifndef VI_VERSION
  !define VI_VERSION "0.0.0.0"
!endif
!ifndef BUNDLE_KB
  !define BUNDLE_KB 0
!endif
!ifdef COMPRESSION
  !if "${COMPRESSION}" == "fast"
    SetCompressor zlib
  !else
    SetCompressor /SOLID lzma
    SetCompressorDictSize 64
  !endif
!else
  SetCompressor /SOLID lzma
  SetCompressorDictSize 64
!endif

; signed build (build_windows.sh with KANON_SIGN_PKCS12): the uninstaller before it is embedded, the setup.exe
; once written
!ifdef SIGN_CMD
  !uninstfinalize '${SIGN_CMD} "%1"'
  !finalize '${SIGN_CMD} "%1"'
!endif

!define APP "kanon"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\kanon"
!define APPPATH_KEY "Software\Microsoft\Windows\CurrentVersion\App Paths\kanon.exe"
!define PROGID "kanon.project"
!define SHCNE_ASSOCCHANGED 0x08000000
!define ERROR_ELEVATION_REQUIRED 740

Name "${APP}"
OutFile "${OUTFILE}"
BrandingText "${APP} ${VERSION}"
ShowInstDetails show
ShowUninstDetails show

VIProductVersion "${VI_VERSION}"
VIFileVersion "${VI_VERSION}"
VIAddVersionKey /LANG=0 "ProductName" "${APP}"
VIAddVersionKey /LANG=0 "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=0 "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=0 "FileDescription" "${APP} ${VERSION} setup (anonymization workbench)"
VIAddVersionKey /LANG=0 "CompanyName" "${APP}"
VIAddVersionKey /LANG=0 "LegalCopyright" "${APP} contributors"

!include MUI2.nsh
!include LogicLib.nsh
!include FileFunc.nsh
!include nsDialogs.nsh
!include WinVer.nsh
!include x64.nsh

Var Mode        ; "CurrentUser" or "AllUsers"
Var ModeGiven   ; 1 when /ALLUSERS or /CURRENTUSER was on the command line
Var DirGiven    ; 1 when /D= set the folder
Var RadioMe
Var RadioAll

; --- pages ------------------------------------------------------------------------------------------
!define MUI_ICON "kanon.ico"
!define MUI_UNICON "kanon.ico"
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\kanon.exe"
!define MUI_UNCONFIRMPAGE_TEXT_TOP "$(UnKeeps)"

!insertmacro MUI_PAGE_WELCOME
Page custom ModePage ModePageLeave
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES

; the first language is the fallback; NSIS picks the one matching Windows' display language
!insertmacro MUI_LANGUAGE "English"
!insertmacro MUI_LANGUAGE "German"
!insertmacro MUI_LANGUAGE "French"
!insertmacro MUI_LANGUAGE "Spanish"

; --- our own texts, in the four languages -----------------------------------------------------------
LangString ModeTitle ${LANG_ENGLISH} "Who will use kanon?"
LangString ModeTitle ${LANG_GERMAN} "Wer soll kanon verwenden?"
LangString ModeTitle ${LANG_FRENCH} "Qui utilisera kanon ?"
LangString ModeTitle ${LANG_SPANISH} "¿Quién usará kanon?"
LangString ModeText ${LANG_ENGLISH} "kanon can be installed for you alone or for everyone who uses this computer."
LangString ModeText ${LANG_GERMAN} "kanon kann nur für Sie oder für alle Benutzer dieses Computers installiert werden."
LangString ModeText ${LANG_FRENCH} "kanon peut être installé pour vous seul ou pour tous les utilisateurs de cet ordinateur."
LangString ModeText ${LANG_SPANISH} "kanon puede instalarse solo para usted o para todos los usuarios de este equipo."
LangString ModeMe ${LANG_ENGLISH} "Just for me (recommended; no administrator rights needed)"
LangString ModeMe ${LANG_GERMAN} "Nur für mich (empfohlen; keine Administratorrechte nötig)"
LangString ModeMe ${LANG_FRENCH} "Pour moi seulement (recommandé ; aucun droit d'administrateur requis)"
LangString ModeMe ${LANG_SPANISH} "Solo para mí (recomendado; no requiere derechos de administrador)"
LangString ModeAll ${LANG_ENGLISH} "For everyone on this computer (needs administrator rights)"
LangString ModeAll ${LANG_GERMAN} "Für alle Benutzer dieses Computers (Administratorrechte nötig)"
LangString ModeAll ${LANG_FRENCH} "Pour tous les utilisateurs de cet ordinateur (droits d'administrateur requis)"
LangString ModeAll ${LANG_SPANISH} "Para todos los usuarios de este equipo (requiere derechos de administrador)"
LangString NeedAdmin ${LANG_ENGLISH} "Installing for everyone needs administrator rights. Windows will now ask for them; if you do not have them, choose $\"Just for me$\"."
LangString NeedAdmin ${LANG_GERMAN} "Die Installation für alle Benutzer braucht Administratorrechte. Windows fragt jetzt danach; wenn Sie keine haben, wählen Sie $\"Nur für mich$\"."
LangString NeedAdmin ${LANG_FRENCH} "L'installation pour tous les utilisateurs nécessite des droits d'administrateur. Windows va les demander ; si vous ne les avez pas, choisissez $\"Pour moi seulement$\"."
LangString NeedAdmin ${LANG_SPANISH} "La instalación para todos los usuarios requiere derechos de administrador. Windows los pedirá ahora; si no los tiene, elija $\"Solo para mí$\"."
LangString UnNeedAdmin ${LANG_ENGLISH} "kanon was installed for everyone on this computer; removing it needs administrator rights. Windows will now ask for them."
LangString UnNeedAdmin ${LANG_GERMAN} "kanon wurde für alle Benutzer installiert; zum Entfernen sind Administratorrechte nötig. Windows fragt jetzt danach."
LangString UnNeedAdmin ${LANG_FRENCH} "kanon a été installé pour tous les utilisateurs ; le supprimer nécessite des droits d'administrateur. Windows va les demander."
LangString UnNeedAdmin ${LANG_SPANISH} "kanon se instaló para todos los usuarios; quitarlo requiere derechos de administrador. Windows los pedirá ahora."
LangString OldWindows ${LANG_ENGLISH} "kanon needs 64-bit Windows 10 (version 1809) or later."
LangString OldWindows ${LANG_GERMAN} "kanon braucht 64-Bit-Windows 10 (Version 1809) oder neuer."
LangString OldWindows ${LANG_FRENCH} "kanon nécessite Windows 10 64 bits (version 1809) ou plus récent."
LangString OldWindows ${LANG_SPANISH} "kanon necesita Windows 10 de 64 bits (versión 1809) o posterior."
LangString Checking ${LANG_ENGLISH} "Checking that kanon works on this computer (self-test, about half a minute)..."
LangString Checking ${LANG_GERMAN} "Prüfe, ob kanon auf diesem Computer funktioniert (Selbsttest, etwa eine halbe Minute)..."
LangString Checking ${LANG_FRENCH} "Vérification du fonctionnement de kanon sur cet ordinateur (autotest, environ une demi-minute)..."
LangString Checking ${LANG_SPANISH} "Comprobando que kanon funciona en este equipo (autoprueba, aproximadamente medio minuto)..."
LangString CheckPassed ${LANG_ENGLISH} "Self-test passed."
LangString CheckPassed ${LANG_GERMAN} "Selbsttest bestanden."
LangString CheckPassed ${LANG_FRENCH} "Autotest réussi."
LangString CheckPassed ${LANG_SPANISH} "Autoprueba superada."
LangString CheckFailed ${LANG_ENGLISH} "kanon was installed, but its self-test did not pass (code $0). Please send the file $INSTDIR\self-test.log to your IT support."
LangString CheckFailed ${LANG_GERMAN} "kanon wurde installiert, aber der Selbsttest ist fehlgeschlagen (Code $0). Bitte senden Sie die Datei $INSTDIR\self-test.log an Ihren IT-Support."
LangString CheckFailed ${LANG_FRENCH} "kanon a été installé, mais son autotest a échoué (code $0). Veuillez envoyer le fichier $INSTDIR\self-test.log à votre support informatique."
LangString CheckFailed ${LANG_SPANISH} "kanon se instaló, pero su autoprueba falló (código $0). Envíe el archivo $INSTDIR\self-test.log a su soporte informático."
LangString ProjectType ${LANG_ENGLISH} "kanon project"
LangString ProjectType ${LANG_GERMAN} "kanon-Projekt"
LangString ProjectType ${LANG_FRENCH} "Projet kanon"
LangString ProjectType ${LANG_SPANISH} "Proyecto de kanon"
LangString ShortcutComment ${LANG_ENGLISH} "Make a k-anonymous release of patient records (works offline)"
LangString ShortcutComment ${LANG_GERMAN} "Patientendaten k-anonym freigeben (arbeitet offline)"
LangString ShortcutComment ${LANG_FRENCH} "Produire une version k-anonyme de données de patients (fonctionne hors ligne)"
LangString ShortcutComment ${LANG_SPANISH} "Generar una versión k-anónima de datos de pacientes (funciona sin conexión)"
LangString UnKeeps ${LANG_ENGLISH} "kanon will be removed from this computer. Your projects, data files, settings and kanon's log are kept."
LangString UnKeeps ${LANG_GERMAN} "kanon wird von diesem Computer entfernt. Ihre Projekte, Datendateien, Einstellungen und das Protokoll von kanon bleiben erhalten."
LangString UnKeeps ${LANG_FRENCH} "kanon va être supprimé de cet ordinateur. Vos projets, fichiers de données, réglages et le journal de kanon sont conservés."
LangString UnKeeps ${LANG_SPANISH} "kanon se quitará de este equipo. Sus proyectos, archivos de datos, ajustes y el registro de kanon se conservan."

; --- install mode (shared by installer and uninstaller) ---------------------------------------------
!macro IS_ADMIN_FN prefix
  Function ${prefix}IsAdmin ; pushes 1 when this process has administrator rights (elevated)
    UserInfo::GetAccountType
    Pop $0
    ${If} $0 == "Admin"
      Push 1
    ${Else}
      Push 0
    ${EndIf}
  FunctionEnd
!macroend
!insertmacro IS_ADMIN_FN ""
!insertmacro IS_ADMIN_FN "un."

!macro READ_MODE_OPTIONS
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/ALLUSERS" $R1
  ${IfNot} ${Errors}
    StrCpy $Mode "AllUsers"
    StrCpy $ModeGiven 1
  ${EndIf}
  ClearErrors
  ${GetOptions} $R0 "/CURRENTUSER" $R1
  ${IfNot} ${Errors}
    StrCpy $Mode "CurrentUser"
    StrCpy $ModeGiven 1
  ${EndIf}
!macroend

; SetShellVarContext, and the folder unless /D= chose one: where this mode's earlier installation is
; (an upgrade replaces it in place), else the mode's default
Function ApplyMode
  ${If} $Mode == "AllUsers"
    SetShellVarContext all
    StrCpy $1 "$PROGRAMFILES64\${APP}"
  ${Else}
    SetShellVarContext current
    StrCpy $1 "$LOCALAPPDATA\Programs\${APP}"
  ${EndIf}
  ${If} $DirGiven != 1
    ReadRegStr $0 SHCTX "${UNINST_KEY}" "InstallLocation"
    ${If} $0 != ""
      StrCpy $1 $0
    ${EndIf}
    StrCpy $INSTDIR $1
  ${EndIf}
FunctionEnd

; /ALLUSERS without administrator rights: ask Windows (UAC) to start this installer again elevated
Function Elevate
  ${If} ${Silent}
    SetErrorLevel ${ERROR_ELEVATION_REQUIRED}
    Quit
  ${EndIf}
  MessageBox MB_OKCANCEL|MB_ICONINFORMATION "$(NeedAdmin)" IDOK +2
  Return
  ClearErrors
  ExecShell "runas" "$EXEPATH" "/ALLUSERS"
  ${IfNot} ${Errors}
    Quit
  ${EndIf}
FunctionEnd

Function .onInit
  SetRegView 64
  ${IfNot} ${RunningX64}
  ${OrIfNot} ${AtLeastWin10}
  ${OrIfNot} ${AtLeastBuild} 17763
    MessageBox MB_OK|MB_ICONSTOP "$(OldWindows)" /SD IDOK
    SetErrorLevel 2
    Quit
  ${EndIf}
  ${If} $INSTDIR != ""
    StrCpy $DirGiven 1
  ${EndIf}
  ; an existing installation keeps its mode (an upgrade replaces it in place)
  StrCpy $Mode "CurrentUser"
  ReadRegStr $0 HKLM "${UNINST_KEY}" "InstallLocation"
  ReadRegStr $1 HKCU "${UNINST_KEY}" "InstallLocation"
  ${If} $0 != ""
  ${AndIf} $1 == ""
    StrCpy $Mode "AllUsers"
  ${EndIf}
  !insertmacro READ_MODE_OPTIONS
  Call ApplyMode
  ; all users asked for on the command line, or an all-users installation upgraded silently: that needs
  ; administrator rights now (interactively, the second page asks)
  ${If} $Mode == "AllUsers"
    ${If} $ModeGiven == 1
    ${OrIf} ${Silent}
      Call IsAdmin
      Pop $0
      ${If} $0 != 1
        Call Elevate
        StrCpy $Mode "CurrentUser" ; not elevated: the user may still install for themselves
        StrCpy $ModeGiven 0
        Call ApplyMode
      ${EndIf}
    ${EndIf}
  ${EndIf}
FunctionEnd

Function ModePage
  ${If} $ModeGiven == 1
    Abort ; chosen on the command line
  ${EndIf}
  !insertmacro MUI_HEADER_TEXT "$(ModeTitle)" "$(ModeText)"
  nsDialogs::Create 1018
  Pop $0
  ${NSD_CreateRadioButton} 0 20u 100% 14u "$(ModeMe)"
  Pop $RadioMe
  ${NSD_CreateRadioButton} 0 40u 100% 14u "$(ModeAll)"
  Pop $RadioAll
  ${If} $Mode == "AllUsers"
    ${NSD_Check} $RadioAll
  ${Else}
    ${NSD_Check} $RadioMe
  ${EndIf}
  nsDialogs::Show
FunctionEnd

Function ModePageLeave
  ${NSD_GetState} $RadioAll $0
  ${If} $0 == ${BST_CHECKED}
    StrCpy $Mode "AllUsers"
    Call IsAdmin
    Pop $0
    ${If} $0 != 1
      Call Elevate ; quits when Windows started the elevated copy
      StrCpy $Mode "CurrentUser"
      ${NSD_Check} $RadioMe
      ${NSD_Uncheck} $RadioAll
      Abort ; stay on this page
    ${EndIf}
  ${Else}
    StrCpy $Mode "CurrentUser"
  ${EndIf}
  Call ApplyMode
FunctionEnd

; --- install ----------------------------------------------------------------------------------------
Section "kanon" SecMain
  SectionIn RO
  SetOutPath "$INSTDIR"
  ; an upgrade replaces the program: remove the previous version's program files (only those)
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\kanon.exe"
  Delete "$INSTDIR\kanon-console.exe"
  Delete "$INSTDIR\self-test.log"
  File /r "${BUNDLE}\*.*"
  WriteUninstaller "$INSTDIR\Uninstall.exe"

  CreateShortcut "$SMPROGRAMS\${APP}.lnk" "$INSTDIR\kanon.exe" "" "$INSTDIR\kanon.exe" 0 SW_SHOWNORMAL "" \
      "$(ShortcutComment)"

  ; Apps & Features
  WriteRegStr SHCTX "${UNINST_KEY}" "DisplayName" "${APP}"
  WriteRegStr SHCTX "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr SHCTX "${UNINST_KEY}" "Publisher" "${APP}"
  WriteRegStr SHCTX "${UNINST_KEY}" "Comments" "$(ShortcutComment)"
  WriteRegStr SHCTX "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\kanon.exe,0"
  WriteRegStr SHCTX "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr SHCTX "${UNINST_KEY}" "InstallMode" "$Mode"
  WriteRegStr SHCTX "${UNINST_KEY}" "UninstallString" '"$INSTDIR\Uninstall.exe" /$Mode'
  WriteRegStr SHCTX "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\Uninstall.exe" /S /$Mode'
  WriteRegDWORD SHCTX "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD SHCTX "${UNINST_KEY}" "NoRepair" 1
  WriteRegDWORD SHCTX "${UNINST_KEY}" "EstimatedSize" ${BUNDLE_KB}
  ; "kanon" in the Run dialog (Win+R)
  WriteRegStr SHCTX "${APPPATH_KEY}" "" "$INSTDIR\kanon.exe"
  ; project files: a file type, offered in "Open with" for .json (see the top of this file)
  WriteRegStr SHCTX "Software\Classes\${PROGID}" "" "$(ProjectType)"
  WriteRegStr SHCTX "Software\Classes\${PROGID}\DefaultIcon" "" "$INSTDIR\kanon.exe,0"
  WriteRegStr SHCTX "Software\Classes\${PROGID}\shell\open\command" "" '"$INSTDIR\kanon.exe" "%1"'
  WriteRegStr SHCTX "Software\Classes\.json\OpenWithProgids" "${PROGID}" ""
  WriteRegStr SHCTX "Software\Classes\Applications\kanon.exe" "FriendlyAppName" "${APP}"
  WriteRegStr SHCTX "Software\Classes\Applications\kanon.exe\SupportedTypes" ".json" ""
  WriteRegStr SHCTX "Software\Classes\Applications\kanon.exe\shell\open\command" "" '"$INSTDIR\kanon.exe" "%1"'
  System::Call 'shell32::SHChangeNotify(i ${SHCNE_ASSOCCHANGED}, i 0, p 0, p 0)'

  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/NOSELFTEST" $R1
  ${If} ${Errors}
    Call SelfTest
  ${EndIf}
SectionEnd

; the installed copy checks itself (no window, no network); its output stays in self-test.log
Function SelfTest
  DetailPrint "$(Checking)"
  nsExec::Exec '"$SYSDIR\cmd.exe" /D /C ""$INSTDIR\kanon-console.exe" --self-test > "$INSTDIR\self-test.log" 2>&1"'
  Pop $0
  ${If} $0 == 0
    DetailPrint "$(CheckPassed)"
  ${Else}
    DetailPrint "$(CheckFailed)"
    MessageBox MB_OK|MB_ICONEXCLAMATION "$(CheckFailed)" /SD IDOK
    SetErrorLevel 3
  ${EndIf}
FunctionEnd

; --- uninstall --------------------------------------------------------------------------------------
Function un.onInit
  SetRegView 64
  ; the mode the installer recorded (the uninstall entry also passes it on the command line)
  StrCpy $Mode "CurrentUser"
  ReadRegStr $0 HKCU "${UNINST_KEY}" "InstallLocation"
  ReadRegStr $1 HKLM "${UNINST_KEY}" "InstallLocation"
  ${If} $0 == ""
  ${AndIf} $1 != ""
    StrCpy $Mode "AllUsers"
  ${EndIf}
  !insertmacro READ_MODE_OPTIONS
  ${If} $Mode == "AllUsers"
    SetShellVarContext all
    Call un.IsAdmin
    Pop $0
    ${If} $0 != 1
      ${If} ${Silent}
        SetErrorLevel ${ERROR_ELEVATION_REQUIRED}
        Quit
      ${EndIf}
      MessageBox MB_OKCANCEL|MB_ICONINFORMATION "$(UnNeedAdmin)" IDCANCEL +2
      ExecShell "runas" "$INSTDIR\Uninstall.exe" "/ALLUSERS"
      Quit
    ${EndIf}
  ${Else}
    SetShellVarContext current
  ${EndIf}
FunctionEnd

!macro DELETE_KEY_IF_EMPTY key
  ; only when it has no subkey, no named value and no default value: other programs use the same key
  ClearErrors
  EnumRegKey $0 SHCTX "${key}" 0
  EnumRegValue $1 SHCTX "${key}" 0
  ReadRegStr $2 SHCTX "${key}" ""
  ${If} "$0$1$2" == ""
    DeleteRegKey SHCTX "${key}"
  ${EndIf}
!macroend

Section "Uninstall"
  ; the program files the installer wrote; user files in the folder and the folder itself stay
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\kanon.exe"
  Delete "$INSTDIR\kanon-console.exe"
  Delete "$INSTDIR\self-test.log"
  Delete "$INSTDIR\Uninstall.exe"
  RMDir "$INSTDIR" ; only if empty
  ${If} $Mode == "CurrentUser"
    RMDir "$LOCALAPPDATA\Programs" ; Windows' per-user programs folder, only if nothing else is in it
  ${EndIf}

  Delete "$SMPROGRAMS\${APP}.lnk"
  DeleteRegKey SHCTX "${UNINST_KEY}"
  DeleteRegKey SHCTX "${APPPATH_KEY}"
  DeleteRegKey SHCTX "Software\Classes\${PROGID}"
  DeleteRegKey SHCTX "Software\Classes\Applications\kanon.exe"
  DeleteRegValue SHCTX "Software\Classes\.json\OpenWithProgids" "${PROGID}"
  !insertmacro DELETE_KEY_IF_EMPTY "Software\Classes\.json\OpenWithProgids"
  !insertmacro DELETE_KEY_IF_EMPTY "Software\Classes\.json"
  System::Call 'shell32::SHChangeNotify(i ${SHCNE_ASSOCCHANGED}, i 0, p 0, p 0)'
SectionEnd
