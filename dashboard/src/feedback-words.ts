/**
 * Where a feedback came from, in words. The server stores the `source` the SDK named
 * (src/feedback/feedback-record.ts): the widget names `widget`; captureFeedback and sendFeedback
 * name none unless the app passes one, and the server stores `api` for them; user reports and the
 * crash-report dialog's form get sources of their own. Any other source is the app's own name.
 */
const SOURCE_WORDS: Record<string, string> = {
  widget: 'Sent with the feedback widget',
  api: "Sent by the app's code (captureFeedback)",
  user_report: 'Sent as a user report (captureUserFeedback)',
  crash_report_dialog: 'Sent with the crash-report dialog',
};

export function feedbackSourceWords(source: string): string {
  return Object.hasOwn(SOURCE_WORDS, source) ? SOURCE_WORDS[source] : `Sent from “${source}”`;
}
