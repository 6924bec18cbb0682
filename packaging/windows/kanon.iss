; Inno Setup 6 script for kanon on Windows (x64): one setup.exe, offline by construction (the whole
; PyInstaller bundle is inside; nothing is downloaded during or after installation).
;
; Build (on Windows, after the bundle; see README.md in this folder):
;   "C:\Program Files (x86)\Inno Setup 6\ISCC.exe" /DAppVersion=0.1.0 packaging\windows\kanon.iss
; Signed (recommended, so SmartScreen and hospital policies accept it):
;   ISCC.exe /DAppVersion=0.1.0 "/Ssigntool=$qC:\...\signtool.exe$q sign /fd sha256 /tr http://timestamp.example /td sha256 /a $f" /DSign packaging\windows\kanon.iss
;
; Per-user install by default (no administrator rights: %LOCALAPPDATA%\Programs\kanon); an administrator
; can choose "install for all users" (C:\Program Files\kanon) in the first dialog.

#ifndef AppVersion
  #error Pass the version: ISCC.exe /DAppVersion=0.1.0 kanon.iss
#endif
#define AppName "kanon"
#define BundleDir "..\..\dist\windows\kanon"

[Setup]
; AppId identifies kanon for upgrades and uninstall: never change it between versions.
AppId={{6F0C4E0B-7A54-4C64-9D44-3B1F8C2A9E51}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=kanon
AppComments=Anonymization workbench for patient records; works offline.
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=commandline dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
; Qt 6 needs Windows 10 1809 or later
MinVersion=10.0.17763
OutputDir=..\..\dist\installers
OutputBaseFilename=kanon-{#AppVersion}-windows-x64-setup
SetupIconFile=kanon.ico
UninstallDisplayIcon={app}\kanon.exe
UninstallDisplayName={#AppName} {#AppVersion}
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
CloseApplications=yes
; an upgrade replaces the program files; the user's projects, log and settings
; (%APPDATA%\kanon\kanon) are never touched by setup or uninstall
#ifdef Sign
SignTool=signtool
SignedUninstaller=yes
#endif

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[InstallDelete]
; files of an older version that the new one no longer ships must not linger in _internal
Type: filesandordirs; Name: "{app}\_internal"

[Files]
Source: "{#BundleDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\kanon.exe"; Comment: "Anonymization workbench (offline)"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\kanon.exe"; Tasks: desktopicon

[Run]
Filename: "{app}\kanon.exe"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[Code]
{ After copying, run the installed copy's self-test (about 5 seconds, no window, no network) and say
  plainly if it failed, so a broken installation is noticed at once and not on the first real use. }
procedure CurStepChanged(CurStep: TSetupStep);
var
  ResultCode: Integer;
  LogFile: String;
begin
  if CurStep = ssPostInstall then
  begin
    LogFile := ExpandConstant('{app}\self-test.log');
    WizardForm.StatusLabel.Caption := 'Checking that kanon works on this computer...';
    if not Exec(ExpandConstant('{cmd}'),
                '/C ""' + ExpandConstant('{app}\kanon-console.exe') + '" --self-test > "' + LogFile + '" 2>&1"',
                ExpandConstant('{app}'), SW_HIDE, ewWaitUntilTerminated, ResultCode) or (ResultCode <> 0) then
      SuppressibleMsgBox('kanon was installed, but its self-test did not pass (code ' + IntToStr(ResultCode) +
                         '). Please send the file ' + LogFile + ' to your IT support.',
                         mbError, MB_OK, IDOK);
  end;
end;
