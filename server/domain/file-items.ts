import type { FileReference, FileUploadFields } from '../../common/contract/files.ts';
import type { IngestItem } from '../../common/contract/ingest.ts';

/** A pushed item made from an uploaded file: its data names the original the pipeline extracts. */
export type FileItem = IngestItem & { data: IngestItem['data'] & { file: FileReference } };

/** The file reference of a job's data, when the job is a file's. */
export function fileOf(data: object): FileReference | null {
  const file = (data as { file?: FileReference }).file;
  return file && typeof file.sha256 === 'string' ? file : null;
}

/**
 * The item of one uploaded file. Its title is the file name until the pipeline finds the
 * document's own; its hash is the file's, so uploading the same bytes again is `skipped`
 * (the source type is part of it, as it is of a computed hash).
 */
export function fileItem(knowledgeBaseId: string, fields: FileUploadFields, file: FileReference, externalId: string): FileItem {
  return {
    integrationId: fields.integrationId,
    knowledgeBaseId,
    sourceType: fields.sourceType,
    externalId,
    data: { title: file.name, content: file.name, hash: `file:${fields.sourceType}:sha256:${file.sha256}`, file },
    ...(fields.priority ? { options: { priority: fields.priority } } : {}),
  };
}
