/** The seeded state every reliability suite starts from: one item in one knowledge base, one elsewhere. */
export const FIXTURE = {
  kb: 'kb-main',
  otherKb: 'kb-other',
  integration: 'cms',
  externalId: 'post-1',
  item(overrides: Record<string, unknown> = {}, data: Record<string, unknown> = {}) {
    return {
      integrationId: 'cms',
      knowledgeBaseId: 'kb-main',
      sourceType: 'ARTICLE',
      externalId: 'post-1',
      ...overrides,
      data: { title: 'Opening hours', content: 'We are open Monday to Friday from 9 to 17.', ...data },
    };
  },
};
