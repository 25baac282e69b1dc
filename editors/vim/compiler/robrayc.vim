" Vim compiler file for robrayc, the robray scene compiler
" Compiler:    robrayc
"
" `:make` checks the current file; `:make -o %<.c` compiles it.  Diagnostics are gcc style:
"   file:line:col: error: message
"    <source line>
"    ^~~~
"   hint: did you mean 'translation'?
"   file:line:col: note: ...
" Errors, warnings and notes go to the quickfix list with their column; the hint is appended
" to the message.

if exists('current_compiler')
  finish
endif
let current_compiler = 'robrayc'

if exists(':CompilerSet') != 2
  command -nargs=* CompilerSet setlocal <args>
endif

let s:cpo_save = &cpo
set cpo&vim

CompilerSet makeprg=robrayc\ $*\ %:S
CompilerSet errorformat=
      \%E%f:%l:%c:\ error:\ %m,
      \%W%f:%l:%c:\ warning:\ %m,
      \%I%f:%l:%c:\ note:\ %m,
      \%E%f:%l:\ error:\ %m,
      \%W%f:%l:\ warning:\ %m,
      \%-C\ %.%#,
      \%Chint:\ %m,
      \%Erobrayc:\ error:\ %m,
      \%E%f:\ error:\ %m,
      \%W%f:\ warning:\ %m,
      \%-G%.%#

let &cpo = s:cpo_save
unlet s:cpo_save
