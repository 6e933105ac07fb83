/** package.json's version, written into the bundle by widget/vite.config.ts (`define`). */
declare const __LOCALIQ_WIDGET_VERSION__: string;
