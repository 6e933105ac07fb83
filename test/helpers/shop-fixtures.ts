/**
 * A small shop catalogue (a bakery's articles and products) and questions a visitor asks of it,
 * each with the facts a good answer holds and the ones it must not: lists spread over several
 * products, lead times, prices, opening hours, delivery, and content a shop's data really holds
 * (structured data pasted into a description, a customer's question, bullets).
 * Used by test/integration/answer-quality.test.ts and bench/answer/shop-eval.ts.
 */
export const SHOP_KB = 'kb-shop';

type ShopItem = { externalId: string; sourceType: 'ARTICLE' | 'PRODUCT'; title: string; content: string; sourceData?: Record<string, unknown> };

export const SHOP_ITEMS: ShopItem[] = [
  {
    externalId: 'delivery', sourceType: 'ARTICLE', title: 'Delivery',
    content:
      'We deliver bread and cakes to Germany, Austria and Denmark. Deliveries go out from Monday to Saturday, and on Saturdays ' +
      'they arrive before noon. Delivery costs 5 EUR per order.',
  },
  {
    externalId: 'hours', sourceType: 'ARTICLE', title: 'Opening hours',
    content: 'The shop opens at 7:00 from Monday to Friday and at 8:00 on Saturdays. It closes at 18:00 every day. On Sundays the shop is closed.',
  },
  {
    externalId: 'wedding-cakes', sourceType: 'ARTICLE', title: 'Wedding cakes',
    content:
      'We bake tiered wedding cakes with sponge, chocolate or carrot layers.\n\nOrders for wedding cakes need 6 weeks, because every ' +
      'decoration is made by hand. A tasting session with three flavours costs 25 EUR.',
  },
  {
    externalId: 'sourdough', sourceType: 'PRODUCT', title: 'Sourdough loaf',
    content: 'A country sourdough loaf with a crackling crust, fermented for two days.',
    sourceData: { price: '6.50 EUR', weight: '1 kg' },
  },
  {
    externalId: 'rye', sourceType: 'PRODUCT', title: 'Rye bread', content: '- Our rye bread is vegan and made with whole rye flour and caraway.',
    sourceData: { price: '4.20 EUR' },
  },
  { externalId: 'spelt', sourceType: 'PRODUCT', title: 'Spelt bread', content: 'A light spelt bread, vegan, baked fresh every morning.' },
  {
    externalId: 'oat', sourceType: 'PRODUCT', title: 'Oat loaf', content: 'Vegan oat loaf with sunflower seeds and a soft crumb.',
    sourceData: { price: '5.10 EUR' },
  },
  { externalId: 'baguette', sourceType: 'PRODUCT', title: 'Seeded baguette', content: 'The seeded baguette is vegan and crisp, with sesame and poppy seeds.' },
  { externalId: 'poppy-roll', sourceType: 'PRODUCT', title: 'Poppy seed roll', content: 'Filled with ground poppy seeds and honey, baked daily.' },
  { externalId: 'sesame-roll', sourceType: 'PRODUCT', title: 'Sesame roll', content: 'Topped with toasted sesame seeds, baked daily.' },
  { externalId: 'brioche', sourceType: 'PRODUCT', title: 'Butter brioche', content: 'A soft brioche bread made with butter, milk and eggs.' },
  {
    externalId: 'chocolate-tart', sourceType: 'PRODUCT', title: 'Chocolate tart',
    content: "Dark chocolate tart with a butter crust, for eight people. }; { source: 'erp', is_heat_sensitive: { value:false } }",
  },
  {
    externalId: 'tin-liner', sourceType: 'PRODUCT', title: 'Baking paper tin liner',
    content: 'Round baking paper liners for cake tins, pack of 50. QUESTION: will this fit a 26 cm tin? Answer: The liners fit round tins from 24 to 28 cm.',
  },
];

export type ShopQuestion = {
  question: string;
  /** Facts the answer must hold; an empty list with `abstain` for questions the catalogue cannot answer. */
  facts: RegExp[];
  /** What it must not say: another question's answer, raw data, a customer's question. */
  forbidden: RegExp[];
  abstain?: boolean;
};

export const SHOP_QUESTIONS: ShopQuestion[] = [
  { question: 'Do you deliver to Iceland on Sundays?', facts: [], forbidden: [], abstain: true },
  { question: 'Do you deliver on Saturdays?', facts: [/Saturday/], forbidden: [/5 EUR/] },
  // The delivery days leave Sunday out: a yes/no question whose key term nothing quoted holds is not answered.
  { question: 'Do you deliver on Sundays?', facts: [], forbidden: [], abstain: true },
  { question: 'Which breads are vegan?', facts: [/rye/i, /spelt/i, /oat/i, /baguette/i], forbidden: [/brioche/i] },
  { question: 'How early should I order a wedding cake?', facts: [/6 weeks/], forbidden: [/25 EUR/] },
  { question: 'How much does the sourdough loaf cost?', facts: [/6\.50 EUR/], forbidden: [/5 EUR per order|Delivery/, /4\.20/] },
  { question: 'When does the shop open on Saturdays?', facts: [/8:00/], forbidden: [] },
  { question: 'How many people is the chocolate tart for?', facts: [/eight people/], forbidden: [/[{}]|is_heat_sensitive|source:/] },
  // Only raw data says so: never quoted as it is, its attribute is read as a label line.
  { question: 'Is the chocolate tart heat sensitive?', facts: [/^Heat sensitive: no/], forbidden: [/[{}]|is_heat_sensitive|source:/] },
  { question: 'Will the tin liner fit a 26 cm tin?', facts: [/24 to 28 cm/], forbidden: [/question|will this fit/i, /^Answer:/] },
];

/** The items as one POST /ingest/bulk body. */
export function shopBulk() {
  return {
    items: SHOP_ITEMS.map((item) => ({
      integrationId: 'shop',
      knowledgeBaseId: SHOP_KB,
      sourceType: item.sourceType,
      externalId: item.externalId,
      data: { title: item.title, content: item.content, ...(item.sourceData ? { sourceData: item.sourceData } : {}) },
    })),
  };
}

/** Whether an answer holds the facts and none of the forbidden text, and abstains when it should. */
export function judgeShopAnswer(q: ShopQuestion, answer: { answer: string; answered: boolean }): { ok: boolean; factsFound: number; problems: string[] } {
  const problems: string[] = [];
  if (q.abstain && answer.answered) problems.push('answered a question the catalogue cannot answer');
  if (!q.abstain && !answer.answered) problems.push('abstained');
  const factsFound = q.facts.filter((f) => f.test(answer.answer)).length;
  if (factsFound < q.facts.length) problems.push(`holds ${factsFound} of ${q.facts.length} facts`);
  for (const f of q.forbidden) if (f.test(answer.answer)) problems.push(`says ${f}`);
  if (/^\s*[-*•]\s/.test(answer.answer)) problems.push('starts with a bullet');
  return { ok: problems.length === 0, factsFound, problems };
}
