/**
 * Files the packaged app keeps beside its asar archive (electron-builder's asarUnpack). Node's
 * resolution still names them inside `app.asar`; programs and native loaders that open them by
 * path (not through Electron's patched fs) need the real location in `app.asar.unpacked`.
 */

export function unpackedPath(file: string): string {
  return file.replace(/([\\/])app\.asar([\\/])/, '$1app.asar.unpacked$2');
}

/**
 * The esbuild executable tsx runs to compile the server's TypeScript, as esbuild itself looks it
 * up (`@esbuild/<platform>-<arch>`). It is spawned as a program, which cannot happen inside the
 * archive, so the app points ESBUILD_BINARY_PATH at the unpacked copy.
 */
export function esbuildBinarySpecifier(platform: string, arch: string): string {
  return `@esbuild/${platform}-${arch}/${platform === 'win32' ? 'esbuild.exe' : 'bin/esbuild'}`;
}
