#!/bin/sh
# The standalone build's bin/commerce (put there by package.json's pretarball, which oclif pack runs): the Node it
# carries, on the CLI's entry. oclif's own launcher is bash that forks half a dozen times before Node starts (about
# 35 ms on a small VM); this one forks only to follow a symlink (/usr/local/bin/commerce -> …/bin/commerce).
me=$0
[ -L "$me" ] && me=$(readlink -f "$me")
exec "${me%/*}/node" "${me%/*}/run.js" "$@"
