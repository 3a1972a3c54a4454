// `for await user in auth.authStateChanges`: Firebase's asynchronous sequences of the current user.
extension Auth {
    /// The current user, then each change of the signed-in user (sign-in, sign-out, another user),
    /// including those other running apps of the group make, as Firebase's `authStateChanges`.
    ///
    /// Each iterator registers a stream of its own when it is made (its first value is the user at that
    /// moment) and is removed when the iteration ends (the loop is left or its task cancelled).
    public var authStateChanges: AuthStateChangesSequence { AuthStateChangesSequence(self) }

    /// The current user, then each change of the signed-in user or of their ID token, as Firebase's
    /// `idTokenChanges`; registered and removed as ``authStateChanges`` is.
    public var idTokenChanges: IDTokenChangesSequence { IDTokenChangesSequence(self) }

    /// The sequence ``Auth/authStateChanges`` returns.
    public struct AuthStateChangesSequence: AsyncSequence, Sendable {
        public typealias Element = User?
        public typealias Failure = Never
        public typealias AsyncIterator = Iterator

        private let auth: Auth

        /// A sequence of `auth`'s signed-in user.
        public init(_ auth: Auth) { self.auth = auth }

        /// Registers a stream of the current user and its changes, ended when the iterator is dropped.
        public func makeAsyncIterator() -> Iterator { Iterator(auth.makeStream(\.stateStreams)) }

        /// An iteration of ``Auth/authStateChanges``.
        public struct Iterator: AsyncIteratorProtocol {
            private var changes: AsyncStream<User?>.Iterator
            init(_ stream: AsyncStream<User?>) { changes = stream.makeAsyncIterator() }

            /// The next user (`.some(nil)`: signed out), or `nil` when the iteration ends.
            public mutating func next() async -> User?? { await changes.next() }
        }
    }

    /// The sequence ``Auth/idTokenChanges`` returns.
    public struct IDTokenChangesSequence: AsyncSequence, Sendable {
        public typealias Element = User?
        public typealias Failure = Never
        public typealias AsyncIterator = Iterator

        private let auth: Auth

        /// A sequence of `auth`'s signed-in user and ID token.
        public init(_ auth: Auth) { self.auth = auth }

        /// Registers a stream of the current user and its token changes, ended when the iterator is dropped.
        public func makeAsyncIterator() -> Iterator { Iterator(auth.makeStream(\.tokenStreams)) }

        /// An iteration of ``Auth/idTokenChanges``.
        public struct Iterator: AsyncIteratorProtocol {
            private var changes: AsyncStream<User?>.Iterator
            init(_ stream: AsyncStream<User?>) { changes = stream.makeAsyncIterator() }

            /// The next user (`.some(nil)`: signed out), or `nil` when the iteration ends.
            public mutating func next() async -> User?? { await changes.next() }
        }
    }
}
