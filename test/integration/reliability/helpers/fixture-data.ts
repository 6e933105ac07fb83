import { item } from '../../../helpers/temp-data.ts';

/** The seeded state every reliability suite starts from: one item in one knowledge base, one elsewhere. */
export const FIXTURE = {
  kb: 'kb-main',
  otherKb: 'kb-other',
  integration: 'cms',
  externalId: 'post-1',
  /** The test apps' item (test/helpers/temp-data.ts), whose defaults are the fields above. */
  item,
};
