import { feedbackSourceWords } from './feedback-words';

describe('feedbackSourceWords', () => {
  it('says where each source the server stores comes from', () => {
    expect(feedbackSourceWords('api')).toBe("Sent by the app's code (captureFeedback)");
    expect(feedbackSourceWords('widget')).toBe('Sent with the feedback widget');
    expect(feedbackSourceWords('user_report')).toBe('Sent as a user report (captureUserFeedback)');
    expect(feedbackSourceWords('crash_report_dialog')).toBe('Sent with the crash-report dialog');
  });

  it('quotes a source the app named itself', () => {
    expect(feedbackSourceWords('checkout-form')).toBe('Sent from “checkout-form”');
    expect(feedbackSourceWords('toString')).toBe('Sent from “toString”');
  });
});
