/** The first push, ready to paste: the one thing a new user needs to see something happen. */
export function curlExample(keyValue = '$LOCALIQ_API_KEY', knowledgeBaseId = 'main'): string {
  return `curl -s ${window.location.origin}/ingest \\
  -H "x-api-key: ${keyValue}" -H 'content-type: application/json' \\
  -d '{"integrationId":"shop","knowledgeBaseId":${shellQuoted(JSON.stringify(knowledgeBaseId))},"sourceType":"PRODUCT","externalId":"sku-42",
       "data":{"title":"Rain jacket","content":"Waterproof jacket with taped seams."}}'`;
}

/** Text placed inside a single-quoted shell argument. */
const shellQuoted = (text: string) => text.replaceAll("'", "'\\''");
