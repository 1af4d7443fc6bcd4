import type { NotificationChannel } from '../../channels/channel.entity';
import type { AnyAlertNotification } from '../alert-notification';

/** One channel type's transport. */
export interface AlertSender {
  /**
   * Delivers one notification. Resolves with a short description of the receiver's answer
   * ("webhook answered 200 OK"); rejects with a `DeliveryError` when the receiver did not accept it.
   * `idempotencyKey` is the same for every attempt of the same notification.
   */
  send(
    channel: NotificationChannel,
    notification: AnyAlertNotification,
    idempotencyKey: string,
  ): Promise<string>;
}
