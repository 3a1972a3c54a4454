/// What the example stores: a stand-in for a user record.
let json = #"{"version": 1, "uid": "example-user"}"#
