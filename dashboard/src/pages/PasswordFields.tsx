/** The server's minimum (PASSWORD_MIN_LENGTH, src/users/dto/account.dto.ts), checked before sending. */
export const PASSWORD_MIN = 8;

/** Why a chosen password cannot be sent, or null: too short, or typed differently the second time. */
export function newPasswordProblem(password: string, repeat: string, what: 'password' | 'new password'): string | null {
  if (password.length < PASSWORD_MIN) return `The ${what} needs at least ${PASSWORD_MIN} characters.`;
  if (password !== repeat) return `The two ${what}s differ.`;
  return null;
}

/** A password typed in its labelled field. */
export function PasswordField(props: { label: string; name: string; autoComplete: string; value: string; onInput: (value: string) => void }) {
  return (
    <label class="field">
      <span>{props.label}</span>
      <input
        type="password"
        name={props.name}
        autoComplete={props.autoComplete}
        required
        value={props.value}
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
    </label>
  );
}

/** A password being chosen, and the same typed again (changing one's password, accepting an invitation). */
export function NewPasswordFields(props: {
  id: string;
  label: string;
  repeatLabel: string;
  value: string;
  repeat: string;
  onValue: (value: string) => void;
  onRepeat: (value: string) => void;
}) {
  return (
    <>
      <div class="field">
        <label for={props.id}>{props.label}</label>
        <input
          id={props.id}
          type="password"
          name="new-password"
          autoComplete="new-password"
          required
          minLength={PASSWORD_MIN}
          aria-describedby={`${props.id}-hint`}
          value={props.value}
          onInput={(event) => props.onValue(event.currentTarget.value)}
        />
        <small class="hint" id={`${props.id}-hint`}>
          At least {PASSWORD_MIN} characters.
        </small>
      </div>
      <PasswordField label={props.repeatLabel} name="repeat-password" autoComplete="new-password" value={props.repeat} onInput={props.onRepeat} />
    </>
  );
}
