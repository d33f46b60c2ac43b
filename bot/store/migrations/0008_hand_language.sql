-- The language of a player's last interaction with their hand message (bot/i18n.py): after a
-- restart the hand publisher redraws the message in it. NULL (hands opened before this
-- migration): English.

ALTER TABLE hand_messages ADD COLUMN language TEXT;
