;;; robray-mode-tests.el --- ERT tests for editors/emacs/robray-mode.el  -*- lexical-binding: t; -*-

;; Run by tests/editors/test_emacs.py:
;;   emacs --batch -Q -L editors/emacs -l ert -l tests/editors/robray-mode-tests.el \
;;         -f ert-run-tests-batch-and-exit
;; Environment (set by the Python test):
;;   ROBRAY_FIXTURE       the fixture scene (tests/editors/fixtures/sample.robray)
;;   ROBRAY_FACES         expectations "LINE COL LENGTH FACE[,FACE...]" (1-based line, 0-based col)
;;   ROBRAY_ERRORS        robrayc's real stderr for ROBRAY_BROKEN
;;   ROBRAY_BROKEN        a scene with an error at 7:5 (11 characters)
;;   ROBRAYC              a robrayc executable

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'robray-mode)
(require 'imenu)
(require 'compile)
(require 'flymake)

(defun robray-test--env (name)
  (let ((v (getenv name)))
    (unless v (error "%s is not set" name))
    v))

(defmacro robray-test--with-fixture (&rest body)
  "Run BODY in a robray-mode buffer holding the fixture, fontified."
  `(with-temp-buffer
     (insert-file-contents (robray-test--env "ROBRAY_FIXTURE"))
     (robray-mode)
     (font-lock-ensure)
     ,@body))

(defun robray-test--read-lines (file)
  (with-temp-buffer
    (insert-file-contents file)
    (split-string (buffer-string) "\n" t)))

(defun robray-test--faces-at (beg end)
  "The distinct faces on the characters from BEG to END."
  (let (faces)
    (dotimes (i (- end beg))
      (let ((f (get-text-property (+ beg i) 'face)))
        (dolist (one (if (listp f) (or f '(nil)) (list f)))
          (unless (memq one faces) (push one faces)))))
    faces))

(ert-deftest robray-faces ()
  "Every token listed by the Python side has the expected face(s)."
  (robray-test--with-fixture
   (let ((failures nil) (count 0))
     (dolist (line (robray-test--read-lines (robray-test--env "ROBRAY_FACES")))
       (pcase-let* ((`(,l ,c ,n ,want) (split-string line " "))
                    (wanted (mapcar #'intern (split-string want ",")))
                    (beg (save-excursion
                           (goto-char (point-min))
                           (forward-line (1- (string-to-number l)))
                           (+ (point) (string-to-number c))))
                    (end (+ beg (string-to-number n)))
                    (got (robray-test--faces-at beg end)))
         (setq count (1+ count))
         (unless (and got (cl-every (lambda (f) (memq f wanted)) got))
           (push (format "%S at %s:%s: got %S, want %S"
                         (buffer-substring-no-properties beg end) l c got wanted)
                 failures))))
     (should (> count 50))
     (should-not failures))))

(ert-deftest robray-hyphenated-names-are-symbols ()
  (robray-test--with-fixture
   (goto-char (point-min))
   (re-search-forward "frame \\(upper-link\\)")
   (goto-char (match-beginning 1))
   (should (equal (thing-at-point 'symbol t) "upper-link"))
   (forward-symbol 1)
   (should (= (point) (match-end 1)))
   ;; `-pi` in an expression: the minus is an operator, `pi` a symbol of its own.
   (goto-char (point-min))
   (re-search-forward "offset -\\(pi\\)")
   (goto-char (match-beginning 1))
   (should (equal (thing-at-point 'symbol t) "pi"))))

(ert-deftest robray-syntax-table-comments-and-strings ()
  (robray-test--with-fixture
   (dolist (probe '("numbers in every form" "a comment after code" "Tests look tokens up"))
     (goto-char (point-min))
     (search-forward probe)
     (should (nth 4 (syntax-ppss))))
   (goto-char (point-min))
   (search-forward "meshes/pa")
   (should (nth 3 (syntax-ppss)))
   ;; Code after a comment line is code again.
   (goto-char (point-min))
   (search-forward "def table-height")
   (should-not (nth 8 (syntax-ppss)))))

(defun robray-test--reindent (offset scramble)
  "The fixture's text after mangling its indentation and re-indenting with OFFSET."
  (with-temp-buffer
    (insert-file-contents (robray-test--env "ROBRAY_FIXTURE"))
    (robray-mode)
    (setq-local robray-indent-offset offset)
    (setq indent-tabs-mode nil)
    (goto-char (point-min))
    (let ((n 0))
      (while (not (eobp))
        (delete-horizontal-space)
        (when scramble
          (insert (make-string (% n 7) (if (zerop (% n 3)) ?\t ?\s))))
        (setq n (1+ n))
        (forward-line 1)))
    (indent-region (point-min) (point-max))
    (buffer-string)))

(ert-deftest robray-indentation ()
  (let ((want (with-temp-buffer
                (insert-file-contents (robray-test--env "ROBRAY_FIXTURE"))
                (buffer-string))))
    (should (string= (robray-test--reindent 4 nil) want))
    (should (string= (robray-test--reindent 4 t) want))
    ;; Another offset: every level is 2 columns, the block comment's ` *` still aligned.
    (let ((two (robray-test--reindent 2 t)))
      (should (string-match-p "^frame base {\n  translation" two))
      (should (string-match-p "\n  frame upper-link {\n    type revolute;" two))
      (should (string-match-p "\n \\* Tests look" two)))))

(ert-deftest robray-indentation-defaults-use-spaces ()
  "Without any setting (Emacs's default `indent-tabs-mode' t, `tab-width' 8) the mode
indents as the corpus does: 4 spaces per level, never a tab."
  (with-temp-buffer
    (setq-default indent-tabs-mode t)
    (robray-mode)
    (should-not indent-tabs-mode)
    (insert "frame a {\ngeometry {\nshape box;\n}\n}\n")
    (indent-region (point-min) (point-max))
    (should (equal (buffer-string)
                   "frame a {\n    geometry {\n        shape box;\n    }\n}\n"))))

(ert-deftest robray-indent-line-while-typing ()
  (with-temp-buffer
    (robray-mode)
    (setq indent-tabs-mode nil)
    (insert "frame a {")
    (newline-and-indent)
    (insert "parent b;")
    (should (equal (buffer-substring (line-beginning-position) (point)) "    parent b;"))
    (newline-and-indent)
    (insert "}")
    (indent-according-to-mode)
    (should (equal (buffer-string) "frame a {\n    parent b;\n}"))))

(ert-deftest robray-imenu ()
  (robray-test--with-fixture
   (let* ((index (funcall imenu-create-index-function))
          (names (lambda (alist) (mapcar #'car alist))))
     (should (equal (funcall names (cdr (assoc "Classes" index))) '("red" "wood")))
     (should (member "table-height" (funcall names (cdr (assoc "Defs" index)))))
     (should (member "pi-x" (funcall names (cdr (assoc "Defs" index)))))
     (should (equal (funcall names (cdr (assoc "Frames" index)))
                    '("base" "upper-link" "grid floor" "frame-x" "tool")))
     ;; Entries jump to the definitions.
     (goto-char (cdr (assoc "upper-link" (cdr (assoc "Frames" index)))))
     (should (looking-at "[ \t]*frame upper-link {")))))

(ert-deftest robray-comment-dwim ()
  (with-temp-buffer
    (robray-mode)
    (insert "frame a { }")
    (comment-dwim nil)  ; an end-of-line comment, at `comment-column'
    (should (string-match-p "\\`frame a { }[ \t]+// \\'" (buffer-string)))
    (erase-buffer)
    (insert "def a 1;\ndef b 2;\n")
    (transient-mark-mode 1)
    (set-mark (point-min))
    (goto-char (point-max))
    (activate-mark)
    (comment-dwim nil)  ; comment the region
    (should (equal (buffer-string) "// def a 1;\n// def b 2;\n"))
    (uncomment-region (point-min) (point-max))
    (should (equal (buffer-string) "def a 1;\ndef b 2;\n"))
    ;; `#` comments are comments too: uncommenting removes them.
    (erase-buffer)
    (insert "# def a 1;\n")
    (uncomment-region (point-min) (point-max))
    (should (equal (buffer-string) "def a 1;\n"))))

(ert-deftest robray-auto-mode ()
  (should (eq (assoc-default "/x/scene.robray" auto-mode-alist #'string-match) 'robray-mode))
  (should (eq (assoc-default "/x/scene.curly" auto-mode-alist #'string-match) 'robray-mode)))

(ert-deftest robray-compile-error-regexp ()
  "robrayc's real error is parsed by the `robrayc' entry alone into file, line, column."
  (let ((errors (with-temp-buffer
                  (insert-file-contents (robray-test--env "ROBRAY_ERRORS"))
                  (buffer-string)))
        (broken (robray-test--env "ROBRAY_BROKEN")))
    (with-current-buffer (get-buffer-create "*robray-compile-test*")
      (erase-buffer)
      (setq default-directory (file-name-directory broken))
      (insert "robrayc broken.robray\n" errors)
      (compilation-mode)
      (setq-local compilation-error-regexp-alist '(robrayc))
      (compilation--ensure-parse (point-max))
      (goto-char (point-min))
      (compilation-next-error 1)
      (let* ((msg (get-text-property (point) 'compilation-message))
             (loc (compilation--message->loc msg)))
        (should (= (compilation--message->type msg) 2))  ; error
        (should (= (compilation--loc->line loc) 7))
        ;; compilation stores 0-based columns when `compilation-first-column' is 1
        (should (= (- (compilation--loc->col loc) (1- compilation-first-column)) 5))
        (should (equal (caar (compilation--loc->file-struct loc)) "broken.robray")))
      ;; Exactly one error: the source and caret lines are not messages.
      (should-error (compilation-next-error 1)))))

(ert-deftest robray-compile-warning-and-note-types ()
  (with-temp-buffer
    (insert "a.robray:2:5: warning: redefinition\nb.robray:1:5: note: previous\n"
            "c.robray:3:1: error: bad\n")
    (compilation-mode)
    (setq-local compilation-error-regexp-alist '(robrayc))
    (compilation--ensure-parse (point-max))
    (goto-char (point-min))
    (let (types)
      (while (not (eobp))
        (let ((msg (get-text-property (point) 'compilation-message)))
          (push (and msg (compilation--message->type msg)) types))
        (forward-line 1))
      ;; warning 1, info 0, error 2
      (should (equal (nreverse types) '(1 0 2))))))

(defun robray-test--flymake-wait (buffer)
  "Run flymake in BUFFER and wait (at most 60 s) for its report."
  (with-current-buffer buffer
    (let ((deadline (+ (float-time) 60)))
      (flymake-start)
      (while (and (< (float-time) deadline)
                  (or (not (flymake-running-backends))
                      (not (memq 'robray-flymake (flymake-reporting-backends)))))
        (accept-process-output nil 0.05))
      (should (memq 'robray-flymake (flymake-reporting-backends)))
      (flymake-diagnostics))))

(ert-deftest robray-flymake ()
  (let* ((broken (robray-test--env "ROBRAY_BROKEN"))
         (robray-executable (robray-test--env "ROBRAYC"))
         (buffer (find-file-noselect broken)))
    (unwind-protect
        (with-current-buffer buffer
          (should (eq major-mode 'robray-mode))
          (setq-local flymake-diagnostic-functions '(robray-flymake))
          (flymake-mode 1)
          (let ((diags (robray-test--flymake-wait buffer)))
            (should (= (length diags) 1))
            (let ((d (car diags)))
              (should (eq (flymake-diagnostic-type d) :error))
              (should (string-match-p "unknown attribute 'tranlsation'"
                                      (flymake-diagnostic-text d)))
              (should (string-match-p "did you mean 'translation'" (flymake-diagnostic-text d)))
              (save-excursion
                (goto-char (flymake-diagnostic-beg d))
                (should (= (line-number-at-pos) 7))
                (should (= (current-column) 4)))
              (should (= (- (flymake-diagnostic-end d) (flymake-diagnostic-beg d)) 11))))
          ;; Unsaved edits are checked: fix the attribute, break the parent.
          (goto-char (point-min))
          (search-forward "tranlsation")
          (replace-match "translation")
          (search-backward "parent base")
          (forward-char (length "parent "))
          (insert "no-")
          (should (buffer-modified-p))
          (let ((diags (robray-test--flymake-wait buffer)))
            (should (= (length diags) 1))
            (should (string-match-p "unknown parent frame 'no-base'"
                                    (flymake-diagnostic-text (car diags)))))
          ;; A clean buffer has no diagnostics.
          (delete-char -3)
          (should (null (robray-test--flymake-wait buffer))))
      (with-current-buffer buffer (set-buffer-modified-p nil))
      (kill-buffer buffer))))

(ert-deftest robray-eglot-registration ()
  "With eglot available, robray-mode buffers start `robrayc lsp'."
  (require 'package)
  ;; Debian's elpa-eglot (site-start, which -Q skips, would add this folder).
  (add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")
  (package-initialize)
  (if (not (require 'eglot nil t))
      (ert-skip "eglot is not available in this Emacs")
    (let ((entry (assoc 'robray-mode eglot-server-programs))
          (robray-executable "/opt/bin/robrayc"))
      (should entry)
      (should (equal (funcall (cdr entry)) '("/opt/bin/robrayc" "lsp"))))))

(provide 'robray-mode-tests)

;;; robray-mode-tests.el ends here
