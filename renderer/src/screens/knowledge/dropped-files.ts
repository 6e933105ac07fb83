/**
 * The files a user dropped or chose, with the path each has under what was given: a dropped
 * folder is walked whole (DataTransferItem.webkitGetAsEntry), so `manuals/setup.pdf` stays apart
 * from `faq/setup.pdf`, as `localiq files add` names them.
 */
export type PickedFile = { file: File; path: string };
/** A folder that could not be read, with why (it is reported, not dropped silently). */
export type UnreadFolder = { path: string; reason: string };

/** The entries of a dropped folder: readEntries answers in batches (of 100 in Chromium) until an empty one. */
async function readAll(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  const all: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}

const fileOf = (entry: FileSystemFileEntry) => new Promise<File>((resolve, reject) => entry.file(resolve, reject));

async function walk(entry: FileSystemEntry, found: PickedFile[], unread: UnreadFolder[]): Promise<void> {
  const path = entry.fullPath.replace(/^\/+/, '') || entry.name;
  try {
    if (entry.isFile) found.push({ file: await fileOf(entry as FileSystemFileEntry), path });
    else if (entry.isDirectory) {
      for (const child of await readAll((entry as FileSystemDirectoryEntry).createReader())) await walk(child, found, unread);
    }
  } catch (error) {
    unread.push({ path, reason: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * What a drop holds. The entries are taken before any await: a DataTransfer is emptied once the
 * drop event's handler returns. An item without an entry (a page's own synthetic drop) is read
 * as a plain file.
 */
export async function droppedFiles(data: DataTransfer): Promise<{ files: PickedFile[]; unread: UnreadFolder[] }> {
  const taken = Array.from(data.items)
    .filter((item) => item.kind === 'file')
    .map((item) => ({ entry: item.webkitGetAsEntry?.() ?? null, file: item.getAsFile() }));
  const files: PickedFile[] = [];
  const unread: UnreadFolder[] = [];
  for (const { entry, file } of taken) {
    if (entry) await walk(entry, files, unread);
    else if (file) files.push({ file, path: file.name });
  }
  return { files, unread };
}

/** Files from a file or folder picker: a folder's files carry their path under it (webkitRelativePath). */
export function chosenFiles(list: FileList): PickedFile[] {
  return Array.from(list).map((file) => ({ file, path: file.webkitRelativePath || file.name }));
}
