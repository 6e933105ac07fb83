import type { IngestItem, SourceType } from '../contract/ingest.ts';

/**
 * One realistic item per source type: the starting point the API console offers for each
 * sourceType. A test validates every sample with the ingest schema, so they cannot go stale.
 */
export const SAMPLE_ITEMS: Record<SourceType, IngestItem> = {
  PRODUCT: {
    integrationId: 'shop',
    knowledgeBaseId: 'main',
    sourceType: 'PRODUCT',
    externalId: 'sku-42',
    data: {
      title: 'Rain jacket',
      content: 'Waterproof jacket with taped seams and a packable hood. Machine washable at 30 °C.',
      url: 'https://shop.example.com/products/rain-jacket',
      sourceData: { price: '89.00 EUR', sku: 'RJ-42-NAVY', brand: 'Northwind', color: 'navy', sizes: ['S', 'M', 'L'] },
    },
  },
  ARTICLE: {
    integrationId: 'cms',
    knowledgeBaseId: 'main',
    sourceType: 'ARTICLE',
    externalId: 'post-1187',
    data: {
      title: 'How to care for waxed cotton',
      content: '<p>Brush off dry dirt, wipe with a damp cloth and re-wax once a season.</p><p>Never put it in the washing machine.</p>',
      url: 'https://www.example.com/blog/waxed-cotton-care',
      sourceData: { author: 'Mia Jensen', publishedAt: '2026-03-14', tags: ['care', 'jackets'] },
    },
  },
  PAGE: {
    integrationId: 'website',
    knowledgeBaseId: 'main',
    sourceType: 'PAGE',
    externalId: 'returns',
    data: {
      title: 'Returns and refunds',
      content: 'You can return unworn items within 30 days. Refunds reach your account within 5 working days.',
      url: 'https://www.example.com/returns',
    },
  },
  SERVICE: {
    integrationId: 'booking',
    knowledgeBaseId: 'main',
    sourceType: 'SERVICE',
    externalId: 'repair-zip',
    data: {
      title: 'Zip replacement',
      content: 'We replace broken zips on jackets and bags. Turnaround is one week.',
      sourceData: { price: 'from 25.00 EUR', duration: '7 days', bookable: true },
    },
  },
  PERSON: {
    integrationId: 'team',
    knowledgeBaseId: 'main',
    sourceType: 'PERSON',
    externalId: 'emp-7',
    data: {
      title: 'Sam Okafor',
      content: 'Sam runs the repair workshop and answers questions about alterations and repairs.',
      sourceData: { role: 'Workshop lead', email: 'sam@example.com', languages: ['en', 'fr'] },
    },
  },
};
