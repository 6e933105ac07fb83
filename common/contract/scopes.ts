export const SCOPES = ['iq:import', 'iq:read', 'usage:read', 'articles:read'] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'iq:import': 'Push data to the knowledge base through the ingestion endpoints, follow and delete it.',
  'iq:read': 'Read knowledge base items, search them and ask the assistant.',
  'usage:read': 'Read usage and analytics data.',
  'articles:read': 'Read published articles.',
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
