import { BOT_BACKGROUND, type Theme } from './theme.ts';

/**
 * The widget's whole stylesheet, inside its shadow root: the page's CSS cannot reach in and this
 * cannot reach out. Text colours are checked against their backgrounds (≥ 4.5:1): #1a1a1a and
 * #4d4d4d on white and on BOT_BACKGROUND, the theme pair from theme.ts, #5c3b00 on #fff4e5.
 */
export function stylesheet({ theme, onTheme, accent }: Theme): string {
  return `
.root{--theme:${theme};--on-theme:${onTheme};--accent:${accent};font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1a1a1a;text-align:left;-webkit-text-size-adjust:100%}
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none!important}
button{font:inherit;cursor:pointer;margin:0}
button:disabled,[aria-disabled=true]{cursor:default}
svg{width:20px;height:20px;fill:currentColor;flex:none}
:focus{outline:none}
:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.launcher{position:fixed;bottom:20px;right:20px;z-index:2147483000;display:inline-flex;align-items:center;gap:8px;padding:12px 18px;border:0;border-radius:999px;background:var(--theme);color:var(--on-theme);font-weight:600;box-shadow:0 4px 14px rgba(0,0,0,.28)}
.launcher:focus-visible{outline:3px solid var(--accent);outline-offset:2px;box-shadow:0 0 0 2px #fff,0 4px 14px rgba(0,0,0,.28)}
.panel{position:fixed;bottom:84px;right:20px;z-index:2147483001;width:380px;max-width:calc(100vw - 40px);height:580px;max-height:calc(100vh - 104px);display:flex;flex-direction:column;background:#fff;border-radius:14px;box-shadow:0 12px 40px rgba(0,0,0,.28);overflow:hidden}
.left .launcher,.left .panel{right:auto;left:20px}
.head{display:flex;align-items:center;gap:2px;padding:8px 8px 8px 16px;background:var(--theme);color:var(--on-theme)}
.head h2{flex:1 1 auto;min-width:5.5em;margin:0;font-size:16px;font-weight:600;line-height:1.3;overflow-wrap:anywhere}
.head button{flex:0 1 auto;display:inline-flex;text-align:center;align-items:center;min-height:32px;padding:4px 8px;border:0;border-radius:6px;background:transparent;color:inherit;font-size:13px}
.head :focus-visible{outline-color:var(--on-theme);outline-offset:-2px}
.log{flex:1;overflow-y:auto;padding:16px;display:flex;flex-direction:column;gap:10px;overscroll-behavior:contain}
.msg{max-width:88%;padding:9px 12px;border-radius:14px;overflow-wrap:anywhere;white-space:normal}
.bot{align-self:flex-start;background:${BOT_BACKGROUND};border-bottom-left-radius:4px}
.user{align-self:flex-end;background:var(--theme);color:var(--on-theme);border-bottom-right-radius:4px;white-space:pre-wrap}
.msg p{margin:0}.msg p+p,.msg ul+p,.msg p+ul{margin-top:6px}.msg .gap{height:4px}
.msg ul{margin:0;padding-left:20px}
.thinking{color:#4d4d4d;font-style:italic}
.sources{margin-top:8px;padding-top:6px;border-top:1px solid #d5d9de;font-size:13px}
.sources p{font-weight:600}
.sources ol{margin:2px 0 0;padding-left:22px}
a{color:var(--accent);text-decoration:underline}
.rate{display:flex;align-items:center;gap:4px;margin-top:6px}
.rate button{display:inline-flex;padding:5px;border:1px solid #8a8f98;border-radius:8px;background:#fff;color:#4d4d4d}
.rate svg{width:16px;height:16px}
.thanks{margin-top:6px;font-size:13px;color:#4d4d4d}
.msg .read-as{font-size:13px;color:#4d4d4d}
.starters{display:flex;flex-wrap:wrap;gap:6px;align-self:flex-start;max-width:100%}
.starters button{padding:6px 12px;border:1px solid var(--accent);border-radius:999px;background:#fff;color:var(--accent);font-size:14px;text-align:left}
.notice{margin:0 16px 8px;padding:8px 12px;border-radius:8px;background:#fff4e5;color:#5c3b00;font-size:14px}
.ask{display:flex;gap:8px;padding:10px 12px 12px;border-top:1px solid #e3e5e8}
.ask input{flex:1;min-width:0;margin:0;padding:9px 12px;border:1px solid #8a8f98;border-radius:10px;background:#fff;color:#1a1a1a;font:inherit}
.ask input::placeholder{color:#5f6368;opacity:1}
.ask button{padding:0 16px;border:0;border-radius:10px;background:var(--theme);color:var(--on-theme);font-weight:600}
.ask button:disabled{opacity:.55}
.suggestions{display:flex;flex-direction:column;align-items:flex-start;gap:6px;margin-top:8px}
.suggestions p{margin:0!important;font-size:13px;color:#4d4d4d}
.suggestions button{max-width:100%;padding:6px 12px;border:1px solid var(--accent);border-radius:16px;background:#fff;color:var(--accent);font-size:14px;text-align:left;overflow-wrap:anywhere}
.offer-hint{margin-top:6px!important;font-size:13px;color:#4d4d4d}
.offer{margin-top:6px;padding:6px 12px;border:1px solid var(--accent);border-radius:999px;background:#fff;color:var(--accent);font-size:14px}
.handoff{display:flex;flex-direction:column;gap:6px}
.handoff .title{font-weight:600}
.handoff .field{display:flex;flex-direction:column;gap:2px}
.handoff label{font-size:13px;color:#4d4d4d}
.handoff input[type=text],.handoff input[type=email],.handoff input[type=tel],.handoff textarea{margin:0;padding:7px 10px;border:1px solid #8a8f98;border-radius:8px;background:#fff;color:#1a1a1a;font:inherit;resize:vertical}
.handoff .hint{font-size:13px;color:#4d4d4d}
.handoff .consent{display:flex;gap:8px;align-items:flex-start;color:#1a1a1a}
.handoff .error{padding:6px 10px;border-radius:8px;background:#fff4e5;color:#5c3b00;font-size:14px}
.handoff .actions{display:flex;flex-wrap:wrap;gap:8px}
.handoff .actions button{overflow-wrap:normal;padding:7px 14px;border:1px solid #8a8f98;border-radius:10px;background:#fff;color:#1a1a1a}
.handoff .actions .primary{border:0;background:var(--theme);color:var(--on-theme);font-weight:600}
.replies{display:flex;flex-direction:column;gap:10px}.replies:empty{display:none}
.replied{font-size:13px;color:#4d4d4d}
.sr{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:479.98px){.float .panel{inset:0;width:100%;max-width:none;height:100%;max-height:none;border-radius:0}}
.page .panel{inset:0;width:auto;max-width:none;height:auto;max-height:none;border-radius:0;box-shadow:none}
.page .log,.page .ask,.page .head{padding-inline:max(16px,calc((100% - 760px)/2))}
.page .notice{margin-inline:max(16px,calc((100% - 760px)/2))}
.preview{display:flex;flex-direction:column;align-items:flex-end;gap:12px;height:100%}
.preview.left{align-items:flex-start}
.preview .panel,.preview .launcher{position:relative;inset:auto;z-index:auto}
.preview .launcher{order:1}
.preview .panel{width:100%;max-width:none;height:auto;min-height:420px;max-height:none;flex:1}
`;
}
