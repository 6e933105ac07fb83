/**
 * A bakery's knowledge base as its owner fills it: products with attributes, articles, an item
 * whose title is a question, "Q:/A:" pairs and an uploaded Markdown FAQ; and the questions its
 * visitors asked that answers got wrong (issue 37's table), each with what a right answer holds.
 * Used by test/integration/shop-content-answers.test.ts.
 */
export const BAKERY_KB = 'kb-bakery';

type BakeryItem = { externalId: string; sourceType: 'ARTICLE' | 'PRODUCT'; title: string; content: string; sourceData?: Record<string, unknown> };

export const BAKERY_ITEMS: BakeryItem[] = [
  {
    externalId: 'gluten-free-loaf', sourceType: 'PRODUCT', title: 'Gluten-free loaf',
    content: 'Our gluten-free loaf is baked from buckwheat and rice flour in a separate oven, so it is safe for coeliacs.',
    sourceData: { price: '5.90 EUR' },
  },
  {
    externalId: 'rye-bread', sourceType: 'PRODUCT', title: 'Dark rye bread',
    content: 'Dark rye bread with sunflower seeds, baked every morning. Contains: rye, barley malt (gluten), sesame.',
    sourceData: { price: '4.20 EUR' },
  },
  { externalId: 'cinnamon-bun', sourceType: 'PRODUCT', title: 'Cinnamon bun', content: 'A soft yeast bun rolled with cinnamon sugar and glazed.', sourceData: { price: '2.80 EUR' } },
  {
    externalId: 'birthday-cakes', sourceType: 'PRODUCT', title: 'Birthday cakes',
    content: 'Made-to-order layer cakes for birthdays, with your choice of sponge and filling. Please order at least 7 days before the party. Prices start at 35 EUR.',
  },
  {
    externalId: 'bread-bowl', sourceType: 'PRODUCT', title: 'Stoneware bread bowl',
    content: 'A hand-glazed stoneware bowl for proving and serving bread.',
    sourceData: { price: '24 EUR', dishwasher_safe: false, oven_safe: true, color: 'sand' },
  },
  {
    externalId: 'payment', sourceType: 'ARTICLE', title: 'Payment',
    content: 'We accept all debit and credit cards, Apple Pay and Google Pay, in the shop and online.',
  },
  {
    externalId: 'delivery', sourceType: 'ARTICLE', title: 'Delivery',
    content: 'We deliver to postcodes 10115 to 10999 in Berlin from Tuesday to Saturday. The minimum order for delivery is 20 EUR, and delivery costs 4 EUR.',
  },
  {
    externalId: 'wholesale', sourceType: 'ARTICLE', title: 'Wholesale for cafés and restaurants',
    content: 'Cafés, hotels and restaurants can order bread wholesale, delivered before 6:00. The minimum wholesale order is 80 EUR per delivery.',
  },
  { externalId: 'containers', sourceType: 'ARTICLE', title: 'Can I bring my own container?', content: 'Yes, bring a clean box or bag and we fill it at the counter.' },
  { externalId: 'vouchers', sourceType: 'ARTICLE', title: 'Customer questions', content: 'Q: Do you sell gift vouchers?\nA: Gift vouchers from 10 EUR are sold at the counter and online.' },
];

/** Uploaded as a Markdown file: its headings stay as sections. */
export const BAKERY_FAQ_MARKDOWN = `# Frequently asked questions

### Do you have dairy-free options?

Our sourdough, the rye breads and the baguettes are made without milk or butter, and on Fridays we bake an oat-milk brioche.

### Can I freeze your bread?

Wrap it tightly and it keeps for up to three months in the freezer.

### Where can I park?

There are free parking spaces behind the shop on Lindenstraße.
`;

export type BakeryQuestion = { question: string; facts: RegExp[]; forbidden: RegExp[]; abstain?: boolean; cites?: string };

export const BAKERY_QUESTIONS: BakeryQuestion[] = [
  { question: 'do you have glutenfree bread?', facts: [/gluten-free loaf/i], forbidden: [/Contains:/, /^Yes: .*rye/], cites: 'gluten-free-loaf' },
  { question: 'Can I pay with Bitcoin?', facts: [], forbidden: [], abstain: true },
  { question: 'Do you have dairy free options?', facts: [/without milk or butter/], forbidden: [/does not contain/] },
  { question: 'how much is a cinammon bun', facts: [/2\.80 EUR/], forbidden: [/4\.20|5\.90|35 EUR/], cites: 'cinnamon-bun' },
  { question: 'Can I order a birthday cake for this Saturday?', facts: [/7 days/], forbidden: [], cites: 'birthday-cakes' },
  { question: 'Do you deliver to 10997 and what is the minimum order?', facts: [/20 EUR/], forbidden: [/80 EUR/, /wholesale/i] },
  { question: 'Is the bread bowl dishwasher safe?', facts: [/Dishwasher safe: no/], forbidden: [/[{}]|dishwasher_safe/], cites: 'bread-bowl' },
  { question: 'Do you sell gift vouchers?', facts: [/10 EUR/], forbidden: [/^Q:|Do you sell gift vouchers\?/] },
  { question: 'can i bring my own container', facts: [/clean box or bag/], forbidden: [] },
  { question: 'Do you deliver to Hamburg?', facts: [], forbidden: [], abstain: true },
];

/** The items as one POST /ingest/bulk body. */
export function bakeryBulk() {
  return {
    items: BAKERY_ITEMS.map((item) => ({
      integrationId: 'bakery',
      knowledgeBaseId: BAKERY_KB,
      sourceType: item.sourceType,
      externalId: item.externalId,
      data: { title: item.title, content: item.content, ...(item.sourceData ? { sourceData: item.sourceData } : {}) },
    })),
  };
}

/**
 * A second bakery, for questions that lean on the turn before and ask for a value: its croissant
 * is what the breakfast question was answered with, its delivery note also says "costs", and its
 * rye bread's title ("Vinschgauer") names no word the visitor uses.
 */
export const TURNS_KB = 'kb-bakery-turns';

export const TURNS_ITEMS: BakeryItem[] = [
  {
    externalId: 'croissant', sourceType: 'PRODUCT', title: 'Butter croissant',
    content: 'Flaky and golden, our breakfast favourite, baked every morning.', sourceData: { price: '1.80 EUR' },
  },
  { externalId: 'delivery', sourceType: 'ARTICLE', title: 'Delivery', content: 'Delivery costs 3.50 EUR per order within Berlin, from Tuesday to Saturday.' },
  {
    externalId: 'vinschgauer', sourceType: 'PRODUCT', title: 'Vinschgauer',
    content: 'A flat South Tyrolean rye bread with fennel and caraway, baked every morning. Contains: rye, wheat (gluten).',
    sourceData: { price: '3.60 EUR' },
  },
];

type Turn = { role: 'user' | 'assistant'; content: string };
export type TurnQuestion = BakeryQuestion & { conversation?: Turn[]; leads?: RegExp };

export const TURNS_QUESTIONS: TurnQuestion[] = [
  {
    question: 'How much do they cost?',
    conversation: [{ role: 'user', content: 'what do you have for breakfast?' }, { role: 'assistant', content: 'Flaky and golden, our breakfast favourite, baked every morning. [1]' }],
    facts: [/1\.80 EUR/], forbidden: [/3\.50|Delivery/], cites: 'croissant',
  },
  {
    question: 'How much do they cost?',
    conversation: [{ role: 'user', content: 'Do you have croissants?' }, { role: 'assistant', content: 'Butter croissant 1.80 EUR. [1]' }],
    facts: [/1\.80 EUR/], forbidden: [/3\.50|Delivery/], cites: 'croissant',
  },
  { question: 'How much is the rye bread?', facts: [/3\.60 EUR/], forbidden: [], cites: 'vinschgauer', leads: /^Price: 3\.60 EUR/ },
];

export function turnsBulk() {
  return {
    items: TURNS_ITEMS.map((item) => ({
      integrationId: 'bakery',
      knowledgeBaseId: TURNS_KB,
      sourceType: item.sourceType,
      externalId: item.externalId,
      data: { title: item.title, content: item.content, ...(item.sourceData ? { sourceData: item.sourceData } : {}) },
    })),
  };
}
