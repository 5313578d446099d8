/** The cold-import floor of the authorizer: a bundle with nothing in it, built with the same options. */
export {};
