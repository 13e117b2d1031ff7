import type { SendEmailPayload } from '../jobs/send-email';

type TemplateName = NonNullable<SendEmailPayload['template']>['name'];

/**
 * Bodies of the built-in templates; `{{name}}` is replaced by the variable of that name. Each must
 * use exactly the variables its payload schema requires (`emailTemplateVariables`).
 */
export const emailTemplates: Record<TemplateName, string> = {
  welcome: 'Hello {{name}},\n\nWelcome aboard. Your account is ready.\n',
  'password-reset': 'Hello {{name}},\n\nUse this link to reset your password: {{link}}\n\nIf you did not ask for this, ignore this email.\n',
};

/** The plain-text body of a `send-email` payload: its body, or its template filled in. */
export function renderBody(payload: SendEmailPayload): string {
  if (payload.body !== undefined) return payload.body;
  const template = payload.template;
  if (template === undefined) throw new TypeError('send-email payload has neither body nor template');
  return emailTemplates[template.name].replace(/\{\{(\w+)\}\}/g, (_, key: string) => template.vars[key] ?? '');
}
