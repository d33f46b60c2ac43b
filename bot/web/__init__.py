"""The web table (docs/web.md): the same tables as in Discord, in a browser or as a Discord
Activity, served by the bot's own process. A second front of the change path: a card tapped
on the web is a plain request (bot/table/requests.py) that goes down the same path as a
button clicked in Discord.

Import its modules by name: this package's ``__init__`` imports nothing."""
