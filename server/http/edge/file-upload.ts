import type { FastifyRequest } from 'fastify';
import type { ErrorDetail } from '../../../common/contract/errors.ts';
import { fileKindOf, fileUploadFieldsSchema, SUPPORTED_FILE_EXTENSIONS } from '../../../common/contract/files.ts';
import { pushedIdentifier, quoteName } from '../../../common/contract/text-rules.ts';
import { limitSize } from '../../../common/contract/limits.ts';
import type { Services } from '../../services.ts';
import { UploadedFiles } from '../../use-cases/uploaded-files.ts';
import { ApiError } from './api-error.ts';

export type FileLimits = { fileBytes: number; requestBytes: number; filesPerRequest: number };
export type FileUploadDeps = Pick<Services, 'queue' | 'originals' | 'db'> & { limits: FileLimits };

const FIELD_NAMES = new Set(['integrationId', 'sourceType', 'priority', 'externalId']);
const SHARED_FIELDS = ['integrationId', 'sourceType', 'priority'] as const;

/**
 * Reads a multipart upload of documents for one knowledge base: the one place both
 * `POST /knowledge-bases/{id}/files` (API key) and the dashboard's
 * `POST /admin/api/knowledge-bases/{id}/files` (session) read files. Every file and field is
 * checked before any is queued: one refused file refuses the request, and nothing of it is kept.
 * What happens to the files is the use case's (server/use-cases/uploaded-files.ts). Answers as
 * `POST /ingest/bulk`. The caller has registered @fastify/multipart and checked access.
 */
export async function receiveFileUpload(request: FastifyRequest, knowledgeBaseId: string, apiKeyId: string | null, deps: FileUploadDeps) {
  const { limits } = deps;
  if (!request.isMultipart()) {
    throw new ApiError('unsupported_media_type', 'Send the files as multipart/form-data, each in a part named "file".');
  }
  const upload = new UploadedFiles(deps);
  const fields: Record<string, string[]> = {};
  const problems: ErrorDetail[] = [];
  let requestBytes = 0;
  let files = 0;
  // An externalId field names the file part that follows it.
  let externalId: string | null = null;
  let fileIndex = 0;
  try {
    const parts = request.parts({
      limits: { fileSize: limits.fileBytes, files: limits.filesPerRequest, fields: 1_000, fieldSize: 4_096 },
    });
    for await (const part of parts) {
      if (part.type === 'field') {
        if (part.fieldname === 'externalId') {
          if (externalId !== null) problems.push({ path: 'externalId', message: 'two externalIds in a row: each names the file part after it' });
          externalId = String(part.value);
        } else (fields[part.fieldname] ??= []).push(String(part.value));
        continue;
      }
      const index = fileIndex++;
      const name = baseName(part.filename);
      const problem =
        part.fieldname !== 'file'
          ? `a file must be sent in a part named "file", not "${part.fieldname}"`
          : !name
            ? 'the part has no file name'
            : !pushedIdentifier().safeParse(name).success
              ? fileNameProblem(name)
              : !fileKindOf(name)
                ? `"${name}" is not a kind of file LocalIQ reads (${SUPPORTED_FILE_EXTENSIONS.join(', ')})`
                : null;
      const named = externalId;
      externalId = null;
      if (problem) {
        problems.push({ path: `file.${index}`, message: problem });
        part.file.resume();
        continue;
      }
      const idProblem = pushedIdentifier().safeParse(named ?? name).error?.issues[0]?.message;
      if (idProblem) problems.push({ path: `file.${index}.externalId`, message: idProblem });
      files++;
      const file = await upload.receive(part.file, name, named, (bytes) => {
        requestBytes += bytes;
        if (requestBytes > limits.requestBytes) throw requestTooLarge(limits);
      });
      if (file.bytes === 0) problems.push({ path: `file.${index}`, message: `"${name}" is empty` });
    }
  } catch (error) {
    upload.discard();
    throw asApiError(error, limits);
  }
  if (externalId !== null) problems.push({ path: 'externalId', message: 'an externalId must come before the file part it names' });
  if (files + problems.length === 0) problems.push({ path: 'file', message: 'send at least one part named "file"' });
  const options = parseFields(fields, problems);
  if (problems.length > 0 || !options) {
    upload.discard();
    throw new ApiError('invalid_body', 'The upload was refused; nothing of it was stored.', problems);
  }
  return upload.queue(knowledgeBaseId, options, apiKeyId);
}

/** The name of the file without any folders a client put in it (both separators). */
function baseName(filename: string | undefined): string {
  return (filename ?? '').split(/[\\/]/).pop()!.trim();
}

/** Why a file name cannot name an item (it does when no externalId field comes before it). */
function fileNameProblem(name: string): string {
  if (name.length > 256) return `the file name ${quoteName(name.slice(0, 40))}… is too long (at most 256 characters)`;
  const issue = pushedIdentifier().safeParse(name).error?.issues[0]?.message ?? 'cannot name an item';
  return `the file name ${quoteName(name)} ${issue}`;
}

function requestTooLarge(limits: FileLimits): ApiError {
  return new ApiError('payload_too_large', `The files of one request may take at most ${limitSize(limits.requestBytes)} together; nothing was stored.`);
}

/** The multipart reader's limits, answered in the error shape. */
function asApiError(error: unknown, limits: FileLimits): unknown {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return new ApiError('payload_too_large', `A file may take at most ${limitSize(limits.fileBytes)}; nothing was stored.`);
  }
  if (code === 'FST_FILES_LIMIT') {
    return new ApiError('too_many_items', `One request takes at most ${limits.filesPerRequest} files; nothing was stored.`);
  }
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return new ApiError('invalid_body', 'The form has too many parts; nothing was stored.');
  }
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || code === 'FST_PROTO_VIOLATION') {
    return new ApiError('invalid_body', 'The multipart body could not be read; nothing was stored.');
  }
  if (error instanceof Error && /Unexpected end of (form|multipart data)|Malformed part header|Multipart: Boundary not found/i.test(error.message)) {
    return new ApiError('invalid_body', `The multipart body is cut short or malformed (${error.message}); nothing was stored.`);
  }
  return error;
}

/** The fields shared by every file of the request, checked; problems are added to the list (null when there are any). */
function parseFields(fields: Record<string, string[]>, problems: ErrorDetail[]) {
  for (const name of Object.keys(fields)) {
    if (!FIELD_NAMES.has(name)) problems.push({ path: name, message: `unknown field; the fields are ${[...FIELD_NAMES].join(', ')}` });
    else if (fields[name]!.length > 1) problems.push({ path: name, message: 'given more than once' });
  }
  const parsed = fileUploadFieldsSchema.safeParse(Object.fromEntries(SHARED_FIELDS.map((name) => [name, fields[name]?.[0]])));
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push({ path: issue.path.join('.'), message: issue.message });
    return null;
  }
  return parsed.data;
}
