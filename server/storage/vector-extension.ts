import type Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';

/**
 * Loads sqlite-vec into a connection (every connection that reads or writes vector tables needs
 * it). SQLite opens the extension by file path, which cannot point inside an Electron asar archive:
 * the packaged app ships it unpacked beside the archive (electron-builder.yml asarUnpack).
 */
export function loadVectorExtension(db: Database.Database): void {
  db.loadExtension(sqliteVec.getLoadablePath().replace(/([\\/])app\.asar([\\/])/, '$1app.asar.unpacked$2'));
}
