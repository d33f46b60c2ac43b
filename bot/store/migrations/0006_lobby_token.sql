-- The token of the /kachuful start (or Play again) interaction that answers with a new lobby,
-- stored with the new game before the answer is sent: after a crash between the answer and
-- storing the lobby's message id, the restart finds that message through the token (valid
-- 15 minutes) instead of posting a second lobby. Cleared once the id is stored.

ALTER TABLE games ADD COLUMN lobby_token TEXT;

-- A hand message sent as a follow-up (its click had to be deferred: a deferred click's
-- original response is the message it was on, a public one) is edited by its own id.
ALTER TABLE hand_messages ADD COLUMN message_id INTEGER;
