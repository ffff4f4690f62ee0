"""What keeps secrets and hostile text in their place: redaction of credentials from everything the
judge writes (`redact`), spotlighting of untrusted evidence in prompts (`spotlight`), regular
expressions run under a time limit (`saferegex`) and the cleaning of agent text (`agent_text`)."""
